"""English dates and times for a European provider's customers and staff: day before month and
a 24-hour clock ("3 December 2026, 14:05"), not Django's US defaults ("Dec. 3, 2026, 2:05 p.m.").
Numbers keep English separators (1,234.56)."""

DATE_FORMAT = "j F Y"
TIME_FORMAT = "H:i"
DATETIME_FORMAT = "j F Y, H:i"
SHORT_DATE_FORMAT = "d/m/Y"
SHORT_DATETIME_FORMAT = "d/m/Y H:i"
MONTH_DAY_FORMAT = "j F"
YEAR_MONTH_FORMAT = "F Y"
FIRST_DAY_OF_WEEK = 1  # Monday
