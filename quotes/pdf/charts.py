"""Server-side SVG charts, so the result page and the PDF draw the very same picture.

``cumulative_cost_svg`` draws the cumulative cash cost per month of buying, managed hosting and
cloud GPUs from the engine's ``TcoResult`` (each month's amount rounded to the cent, as the API
states it), and marks the break-even month.
Every text is escaped; the caller passes the words already translated and the number
formatters of the reader's locale. The SVG carries its own text alternative (``<title>`` and
``<desc>``); pages add a table with the same figures.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext, ngettext

from engine.tco import TcoResult, Way
from quotes.advice.labels import WAY_SHORT_LABELS

LABEL_GAP = 32  # minimum vertical distance between two end-of-line labels (two lines each)


@dataclass(frozen=True, slots=True)
class Frame:
    """The drawing's size and margins, in its own units: drawn at about this many CSS pixels,
    a 12-unit text stays 12 px (readable) rather than shrinking with the page."""

    width: int
    height: int
    left: int  # room for the money axis
    right: int  # room for the line labels
    top: int
    bottom: int
    css_class: str
    font_size: int = 12


WIDE = Frame(760, 380, 100, 150, 36, 52, "chart-wide")  # desktop, tablet, the PDFs
# A phone's panel is about 320-350 px wide: 13-unit text stays above 11 px.
NARROW = Frame(360, 340, 72, 104, 40, 48, "chart-narrow", font_size=13)


@dataclass(frozen=True, slots=True)
class Style:
    colour: str
    dash: str  # stroke-dasharray, "" for a solid line: lines differ by more than colour
    marker: str  # a text mark before the label


# Colours with at least 4.5:1 contrast on white; each line also has its own dash pattern.
SERIES: Mapping[Way, Style] = {
    Way.ON_PREMISES: Style("#0b5cad", "", "—"),
    Way.MANAGED: Style("#1b6e35", "10 5", "– –"),
    Way.CLOUD: Style("#a63c00", "3 4", "···"),
}


@dataclass(frozen=True, slots=True)
class ChartText:
    title: str
    description: str
    series: Mapping[str, str]  # option -> label
    month_axis: str
    break_even: Callable[[int], str]  # month -> "Break-even: month 14"


def chart_text(tco: TcoResult, *, description: str) -> ChartText:
    """The chart's words in the active language: its title, its text alternative and the short
    name of each way to pay."""
    years = tco.horizon_months // 12
    return ChartText(
        title=ngettext(
            "Cumulative cost per month over %(years)s year",
            "Cumulative cost per month over %(years)s years",
            years,
        )
        % {"years": years},
        description=description,
        series={way: str(WAY_SHORT_LABELS[way]) for way in SERIES},
        month_axis=gettext("Month"),
        break_even=lambda month: gettext("Break-even: month %(month)s") % {"month": month},
    )


def _nice_step(maximum: float, ticks: int = 5) -> float:
    if maximum <= 0:
        return 1.0
    raw = maximum / ticks
    magnitude = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 2.5, 5, 10):
        if raw <= factor * magnitude:
            return factor * magnitude
    return 10 * magnitude


def _fmt(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


def _spread(wanted: list[float], low: float, high: float) -> list[float]:
    """Label positions in the order given (sorted by y), at least LABEL_GAP apart."""
    placed: list[float] = []
    for y in wanted:
        y = max(y, low) if not placed else max(y, placed[-1] + LABEL_GAP)
        placed.append(y)
    overflow = placed[-1] - high if placed else 0
    if overflow > 0:
        placed = [y - overflow for y in placed]
    return placed


def cumulative_cost_svg(
    tco: TcoResult,
    *,
    text: ChartText,
    money: Callable[[Decimal], str],
    element_id: str = "tco-chart",
    frame: Frame = WIDE,
) -> SafeString:
    """The chart as inline SVG markup (safe to insert into a template), drawn in ``frame``."""
    width, height = frame.width, frame.height
    left, top = frame.left, frame.top
    options = tco.options
    series = {
        name: [month.rounded().amount for month in options[name].monthly_cumulative]
        for name in SERIES
        if name in options
    }
    months = max((len(values) for values in series.values()), default=0)
    if not months:
        return mark_safe("")
    top_value = float(max(max(values) for values in series.values()))
    step = _nice_step(top_value)
    y_max = step * max(1, math.ceil(top_value / step))
    plot_w = width - left - frame.right
    plot_h = height - top - frame.bottom

    def x(month: int) -> float:
        return left + (month - 1) / max(1, months - 1) * plot_w

    def y(value: float) -> float:
        return top + plot_h - value / y_max * plot_h

    title_id, desc_id = f"{element_id}-title", f"{element_id}-desc"
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" id="{escape(element_id)}" '
        f'class="chart {frame.css_class}" '
        f'viewBox="0 0 {width} {height}" width="{width}" height="{height}" role="img" '
        f'aria-labelledby="{title_id} {desc_id}" '
        f'font-family="DejaVu Sans, system-ui, sans-serif" font-size="{frame.font_size}">',
        f'<title id="{title_id}">{escape(text.title)}</title>',
        f'<desc id="{desc_id}">{escape(text.description)}</desc>',
        f'<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>',
    ]
    # Horizontal grid and money axis.
    ticks = round(y_max / step)
    for i in range(ticks + 1):
        value = step * i
        ty = _fmt(y(value))
        out.append(
            f'<line x1="{left}" y1="{ty}" x2="{left + plot_w}" y2="{ty}" '
            f'stroke="{"#5b6673" if i == 0 else "#dde2e8"}" stroke-width="1"/>'
        )
        out.append(
            f'<text x="{left - 8}" y="{ty}" text-anchor="end" dominant-baseline="middle" '
            f'fill="#3d4652">{escape(money(Decimal(str(value))))}</text>'
        )
    # Month axis: every year.
    year_ticks = [1, *range(12, months + 1, 12)]
    for month in year_ticks:
        tx = _fmt(x(month))
        out.append(
            f'<line x1="{tx}" y1="{top + plot_h}" x2="{tx}" y2="{top + plot_h + 5}" '
            'stroke="#5b6673"/>'
        )
        out.append(
            f'<text x="{tx}" y="{top + plot_h + 19}" text-anchor="middle" '
            f'fill="#3d4652">{month}</text>'
        )
    out.append(
        f'<text x="{_fmt(left + plot_w / 2)}" y="{height - 10}" text-anchor="middle" '
        f'fill="#3d4652">{escape(text.month_axis)}</text>'
    )
    # Break-even markers (against managed hosting, and cloud when different).
    break_even = tco.break_even_month
    marked: set[int] = set()
    for month in (break_even.vs_managed, break_even.vs_cloud):
        if not month or month in marked or month > months:
            continue
        marked.add(month)
        bx = _fmt(x(month))
        on_prem = series.get(Way.ON_PREMISES)
        out.append(
            f'<line x1="{bx}" y1="{top}" x2="{bx}" y2="{top + plot_h}" stroke="#1b1f24" '
            'stroke-width="1.5" stroke-dasharray="4 3"/>'
        )
        anchor = "end" if x(month) > left + plot_w * 0.6 else "start"
        offset = -6 if anchor == "end" else 6
        out.append(
            f'<text x="{_fmt(x(month) + offset)}" y="{top - 10 + 16 * (len(marked) - 1)}" '
            f'text-anchor="{anchor}" font-weight="bold" fill="#1b1f24">'
            f"{escape(text.break_even(month))}</text>"
        )
        if on_prem is not None:
            out.append(
                f'<circle cx="{bx}" cy="{_fmt(y(float(on_prem[month - 1])))}" r="5" '
                'fill="#ffffff" stroke="#1b1f24" stroke-width="2"/>'
            )
    # The lines, then their labels at the right end.
    ends = []
    for name, values in series.items():
        style = SERIES[name]
        points = " ".join(f"{_fmt(x(i + 1))},{_fmt(y(float(v)))}" for i, v in enumerate(values))
        dash = f' stroke-dasharray="{style.dash}"' if style.dash else ""
        out.append(
            f'<polyline points="{points}" fill="none" stroke="{style.colour}" stroke-width="3"'
            f' stroke-linejoin="round"{dash}/>'
        )
        ends.append((y(float(values[-1])), name, values[-1]))
    ends.sort()
    positions = _spread([end[0] for end in ends], top + 6, top + plot_h)
    for (_, name, last), label_y in zip(ends, positions, strict=True):
        style = SERIES[name]
        out.append(
            f'<text x="{left + plot_w + 10}" y="{_fmt(label_y)}" dominant-baseline="middle" '
            f'fill="{style.colour}" font-weight="bold">{escape(text.series[name])}</text>'
        )
        out.append(
            f'<text x="{left + plot_w + 10}" y="{_fmt(label_y + 14)}" '
            f'dominant-baseline="middle" fill="#3d4652">{escape(money(last))}</text>'
        )
    out.append("</svg>")
    return mark_safe("".join(out))  # noqa: S308 - every text above went through escape()
