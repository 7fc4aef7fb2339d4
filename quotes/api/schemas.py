"""The calculators' response shapes, for the OpenAPI schema.

Requests are documented by the serializers that validate them (``quotes.api.inputs``,
``quotes.api.tco_inputs``, the workload by ``quotes.api.workload``).
"""

from __future__ import annotations

from rest_framework import serializers

from catalog.api.serializers import ExchangeRateSerializer
from engine.commerce.service_tiers import Coverage
from engine.performance.results import Verdict
from gpuquote.api.schemas import ErrorSchema as ErrorSchema  # shared with the catalog's API
from quotes.api.availability_schemas import OneServerDownSchema, SinglePointSchema
from quotes.api.serving_schemas import EncoderSpeedSchema, ImageSpeedSchema
from quotes.api.sizing_schemas import ExplanationSchema as ExplanationSchema
from quotes.api.sizing_schemas import ModelSchema as ModelSchema
from quotes.api.sizing_schemas import SizingResponseSchema as SizingResponseSchema


class PartLineSchema(serializers.Serializer):
    kind = serializers.CharField()
    sku = serializers.CharField()
    name = serializers.CharField()
    quantity = serializers.IntegerField(help_text="Per server.")
    scope = serializers.ChoiceField(
        choices=["server", "cluster"],
        help_text="server: the quantity is per server; cluster: the quantity is for the whole "
        "cluster (switches, cables and optics, shared storage servers).",
    )
    role = serializers.CharField()
    unit_price = serializers.DecimalField(max_digits=14, decimal_places=2)
    price_date = serializers.DateField(allow_null=True, help_text="When this price was observed.")
    stale = serializers.BooleanField(help_text="Older than PRICE_STALE_DAYS: check before buying.")
    price_observed_in = serializers.CharField(
        allow_null=True,
        help_text="The currency the price was observed in when it was converted into the "
        "answer's (at a rate of `exchange_rates`); null when it was not.",
    )
    availability = serializers.ChoiceField(
        choices=["current", "end_of_life", "refurbished"],
        help_text="Whether the part is sold new (current); others are offered only when no "
        "current part does the job.",
    )
    lead_time_weeks = serializers.IntegerField(
        allow_null=True, help_text="Typical delivery time, in weeks (an estimate)."
    )


class TotalsSchema(serializers.Serializer):
    gpus = serializers.IntegerField()
    vram_gb = serializers.FloatField()
    ram_gb = serializers.IntegerField()
    storage_gb = serializers.FloatField()
    power_w = serializers.IntegerField(help_text="Full-load draw of one server, W.")
    power_sized_w = serializers.IntegerField(help_text="What one server's supplies must deliver.")
    rack_units = serializers.IntegerField()
    cluster_power_w = serializers.IntegerField(
        help_text="Full-load draw of the cluster's switches, optics and storage servers, W."
    )
    price = serializers.DecimalField(max_digits=14, decimal_places=2)
    managed_monthly_price = serializers.DecimalField(
        max_digits=14,
        decimal_places=2,
        allow_null=True,
        help_text="A managed-hosting fee the sales team set in the catalog for these servers, "
        "per month; null: the host's computed fee applies (tco.managed_offer).",
    )
    currency = serializers.CharField()


class CheckSchema(serializers.Serializer):
    rule = serializers.CharField()
    passed = serializers.BooleanField()
    warning = serializers.BooleanField()
    detail = serializers.CharField()


class ServingSpeedSchema(serializers.Serializer):
    gpus_per_replica = serializers.IntegerField(help_text="GPUs per model copy (tensor parallel).")
    replicas = serializers.IntegerField(help_text="Model copies; the users are shared by them.")
    users = serializers.IntegerField(help_text="Concurrent users (requests), all copies.")
    users_per_replica = serializers.IntegerField()
    prompt_tokens = serializers.IntegerField(help_text="Assumed: 3/4 of the context length.")
    answer_tokens = serializers.IntegerField()
    tokens_per_second_per_user = serializers.FloatField(
        help_text="Decode speed each user sees with every user served at once, at the full "
        "context (the slowest point of an answer)."
    )
    tokens_per_second = serializers.FloatField(help_text="All users together.")
    time_to_first_token_s = serializers.FloatField(
        help_text="The prompt's prefill on one model copy; queueing not counted."
    )
    memory_bound = serializers.BooleanField()
    speed = serializers.ChoiceField(
        choices=[v.value for v in Verdict],
        help_text="good: 10 tokens/s or more; fair: at least reading speed (5.3); poor: slower.",
    )
    first_token = serializers.ChoiceField(
        choices=[v.value for v in Verdict],
        help_text="good: within 1 s; fair: within 10 s; poor: longer (Nielsen's limits).",
    )
    one_server_down = OneServerDownSchema(
        allow_null=True, help_text="The same service while one server is repaired; null on one."
    )


class TrainingTimeSchema(serializers.Serializer):
    hours = serializers.FloatField(help_text="On all the option's GPUs, at the stated MFU.")
    deadline_days = serializers.FloatField(allow_null=True)
    meets_deadline = serializers.BooleanField(allow_null=True, help_text="null: no deadline.")


class StackLineSchema(serializers.Serializer):
    key = serializers.ChoiceField(
        choices=["os", "driver", "platform", "container", "frameworks", "kernels"]
    )
    text = serializers.CharField(help_text="In the reader's language.")
    sources = serializers.ListField(child=serializers.URLField())


class SoftwareStackSchema(serializers.Serializer):
    vendor = serializers.CharField()
    platform = serializers.CharField(help_text="CUDA (NVIDIA) or ROCm (AMD).")
    statement = serializers.CharField()
    sources = serializers.ListField(child=serializers.CharField())
    seen_on = serializers.DateField(help_text="When the sources were read.")
    stack = StackLineSchema(
        many=True,
        help_text="The stack line by line for the option's GPUs and work: operating system, "
        "driver, CUDA or ROCm release, container runtime, frameworks, and the kernels of a "
        "compact number format; each with its source.",
    )


class MonitoringStepSchema(serializers.Serializer):
    key = serializers.CharField()
    text = serializers.CharField()
    sources = serializers.ListField(child=serializers.URLField())


class WatchSchema(serializers.Serializer):
    key = serializers.CharField(help_text="gpu_temperature, memory_used, power, ecc_errors...")
    metric = serializers.CharField(help_text="The exporter's field (DCGM or AMD's exporter).")
    what = serializers.CharField()
    alert = serializers.CharField(help_text="When to alert, with the option's own figures.")
    threshold = serializers.CharField(
        allow_null=True, help_text="The alert's number (a decimal string); null: any new count."
    )
    unit = serializers.CharField(help_text="°C, GB (10^9 bytes), W, % or empty for a count.")
    sources = serializers.ListField(child=serializers.URLField())


class MonitoringPlanSchema(serializers.Serializer):
    vendor = serializers.CharField()
    seen_on = serializers.DateField(help_text="When the sources were read.")
    stack = MonitoringStepSchema(
        many=True, help_text="The pipeline: exporter, Prometheus, Grafana, alerts."
    )
    watches = WatchSchema(many=True)
    host_watches = serializers.ListField(
        child=serializers.CharField(),
        help_text="What the host watches and acts on for the customer in managed hosting.",
    )


class PerformanceSchema(serializers.Serializer):
    gpu = serializers.CharField()
    gpus = serializers.IntegerField()
    serving = ServingSpeedSchema(allow_null=True, help_text="Serving a language model.")
    images = ImageSpeedSchema(allow_null=True, help_text="Image generation or classification.")
    encoder = EncoderSpeedSchema(
        required=False, allow_null=True, help_text="Serving an encoder (embeddings, reranking)."
    )
    training = TrainingTimeSchema(allow_null=True, help_text="Training, against the deadline.")
    software = SoftwareStackSchema(allow_null=True)
    monitoring = MonitoringPlanSchema(
        allow_null=True, help_text="What to watch on the option's servers and when to alert."
    )
    lines = serializers.ListField(
        child=serializers.CharField(), help_text="The short answers, in the reader's language."
    )
    explanations = ExplanationSchema(many=True)


class OptionSchema(serializers.Serializer):
    tier = serializers.ChoiceField(choices=["budget", "balanced", "performance"])
    servers = serializers.IntegerField()
    parts = PartLineSchema(many=True)
    stale_prices = serializers.BooleanField()
    totals = TotalsSchema()
    checks = CheckSchema(many=True)
    notes = serializers.ListField(
        child=serializers.CharField(),
        help_text="How the cluster's network and shared storage were designed, with figures.",
    )
    single_points_of_failure = SinglePointSchema(
        many=True, help_text="Parts whose failure alone stops the whole service, spare or not."
    )
    performance = PerformanceSchema(
        required=False,
        allow_null=True,
        help_text="What the option delivers: per-user decode speed and time to first token, "
        "images/s, training time against the deadline, and the GPUs' software stack.",
    )


class RecommendationSchema(serializers.Serializer):
    tier = serializers.ChoiceField(choices=["budget", "balanced", "performance"])
    servers = serializers.IntegerField()
    gpus = serializers.IntegerField()
    gpu = serializers.CharField()
    reasons = serializers.ListField(
        child=serializers.CharField(), help_text="Three reasons, from the rules and the figures."
    )
    buy = serializers.DecimalField(14, 2, help_text="The servers' price.")
    managed_monthly = serializers.DecimalField(
        14,
        2,
        allow_null=True,
        help_text="Managed hosting of all the servers, per month on the contract the horizon "
        "signs (null without a TCO).",
    )
    managed_months = serializers.IntegerField(allow_null=True, help_text="0: no commitment.")
    cloud_monthly = serializers.DecimalField(
        14, 2, allow_null=True, help_text="Cloud GPUs on demand, per month at the use given."
    )
    job = serializers.JSONField(allow_null=True, help_text="One run, as the TCO's job.")
    cheapest = serializers.CharField(
        allow_null=True, help_text="The cheapest way: for one run when the workload is a job."
    )
    cheapest_amount = serializers.DecimalField(14, 2, allow_null=True)
    horizon_months = serializers.IntegerField(allow_null=True)
    currency = serializers.CharField()


class ConfigurationResponseSchema(serializers.Serializer):
    options = OptionSchema(many=True)
    unmet = serializers.ListField(child=serializers.CharField())
    notes = serializers.ListField(
        child=serializers.CharField(),
        help_text="Why a tier is not offered: it would repeat a cheaper option, or no other "
        "build does the job better within its price band without idle GPUs.",
    )
    budget_needed = serializers.DecimalField(
        14,
        2,
        allow_null=True,
        help_text="When the budget was below every sound configuration: the price of the "
        "cheapest one (a budget of exactly this builds it). Null otherwise.",
    )
    exchange_rates = ExchangeRateSerializer(
        many=True,
        help_text="The euro reference rates the parts' prices observed in another currency were "
        "converted at: the ECB's of the day, or its built-in 2024 annual average until one is "
        "recorded. Empty when no price was converted.",
    )
    recommendation = RecommendationSchema(
        allow_null=True,
        help_text="The balanced option (the only one otherwise), why, and its price; the "
        "managed, cloud and cheapest figures need a region: POST /api/v1/tco/ gives them.",
    )


class OptionCostSchema(serializers.Serializer):
    currency = serializers.CharField()
    total = serializers.DecimalField(14, 2)
    by_category = serializers.DictField(child=serializers.DecimalField(14, 2))
    monthly_cumulative = serializers.ListField(child=serializers.DecimalField(14, 2))
    yearly = serializers.ListField(child=serializers.DecimalField(14, 2))
    npv = serializers.DecimalField(14, 2, allow_null=True)
    cost_per_gpu_hour = serializers.DecimalField(14, 2)
    includes = serializers.CharField()


class BreakEvenSchema(serializers.Serializer):
    vs_managed = serializers.IntegerField(allow_null=True)
    vs_cloud = serializers.IntegerField(allow_null=True)
    vs_cloud_reserved = serializers.IntegerField(allow_null=True)


class SensitivityRowSchema(serializers.Serializer):
    parameter = serializers.CharField()
    value = serializers.CharField()
    label = serializers.CharField()
    totals = serializers.DictField(child=serializers.DecimalField(14, 2))
    break_even_month = BreakEvenSchema()


class AssumptionSchema(serializers.Serializer):
    name = serializers.CharField()
    label = serializers.CharField()
    value = serializers.CharField()
    unit = serializers.CharField()
    source = serializers.CharField()
    overridden = serializers.BooleanField()


class ProviderCostSchema(serializers.Serializer):
    amortisation = serializers.DecimalField(
        14,
        2,
        help_text="The hardware paid back: the host's over the server's life (month to month: "
        "at the fleet's occupancy); the customer's straight-line depreciation.",
    )
    power = serializers.DecimalField(14, 2)
    space = serializers.DecimalField(14, 2)
    staff = serializers.DecimalField(14, 2)
    support = serializers.DecimalField(14, 2)
    network = serializers.DecimalField(14, 2)
    total = serializers.DecimalField(14, 2)


class TermFeeSchema(serializers.Serializer):
    months = serializers.IntegerField(help_text="Contract term; 0: month to month.")
    monthly = serializers.DecimalField(14, 2, help_text="Fee per server and month.")
    setup = serializers.DecimalField(14, 2, help_text="One-off setup fee per server.")
    per_gpu_month = serializers.DecimalField(14, 2)
    floor = serializers.DecimalField(
        14, 2, help_text="The hardware's payback over the term: no fee is below it."
    )
    discount = serializers.CharField(help_text="The term's discount, a fraction.")
    floored = serializers.BooleanField(help_text="Raised to the floor.")
    market = serializers.ChoiceField(choices=["below", "within", "above", "unknown"])
    cost = ProviderCostSchema(
        help_text="The host's cost per server and month over the term, from its own cost base."
    )
    renewal = serializers.DecimalField(
        14,
        2,
        required=False,
        help_text="Fee per server and month after the contract: running cost plus margin once "
        "the contract has paid the hardware back, else the same fee.",
    )
    paid_back = serializers.BooleanField(
        required=False, help_text="The contract pays the hardware back within its term."
    )
    customer = ProviderCostSchema(
        required=False,
        help_text="The same server's cost per month at the customer's own inputs (on premises).",
    )


class MarketBandSchema(serializers.Serializer):
    gpu_class = serializers.CharField()
    name = serializers.CharField()
    low = serializers.DecimalField(14, 2, help_text="Cheapest public offer per GPU-month.")
    high = serializers.DecimalField(14, 2, help_text="Dearest public offer per GPU-month.")
    offers = serializers.IntegerField()
    oldest = serializers.DateField()
    newest = serializers.DateField()
    sources = serializers.ListField(child=serializers.CharField())
    origin = serializers.CharField(
        required=False,
        help_text="Where the offers were read: GPUQuote's reference file of public hosting "
        "offers, or the names of the price sources that brought them (their dates and price "
        "pages are oldest, newest and sources).",
    )


class ManagedOfferSchema(serializers.Serializer):
    basis = serializers.ChoiceField(
        choices=["cost_plus", "override"],
        help_text="cost_plus: the host's price model; override: a fee set by sales.",
    )
    currency = serializers.CharField()
    gpus_per_server = serializers.IntegerField()
    contract_months = serializers.IntegerField(
        help_text="The term the horizon signs, the one the managed option's total bills."
    )
    margin = serializers.CharField()
    cost_of_capital = serializers.CharField()
    power_included = serializers.BooleanField()
    override = serializers.DecimalField(14, 2, allow_null=True)
    override_below_floor = serializers.BooleanField()
    occupancy = serializers.CharField(
        required=False, help_text="The host's expected fleet occupancy, a fraction."
    )
    terms = TermFeeSchema(many=True)
    market_band = MarketBandSchema(allow_null=True)


class JobCostSchema(serializers.Serializer):
    hours = serializers.FloatField(help_text="One run on the configuration's GPUs.")
    gpus = serializers.IntegerField()
    cloud = serializers.DecimalField(
        14, 2, allow_null=True, help_text="GPUs x the hours started x the on-demand price."
    )
    cloud_gpu_hours = serializers.IntegerField()
    managed = serializers.DecimalField(
        14, 2, help_text="The host's month-to-month fee x the months started + setup."
    )
    managed_months = serializers.IntegerField()
    buy = serializers.DecimalField(14, 2, help_text="The servers' price + the run's energy.")
    energy = serializers.DecimalField(14, 2)
    cheapest = serializers.ChoiceField(choices=["on_premises", "managed", "cloud"])


class ServiceTierSchema(serializers.Serializer):
    code = serializers.CharField()
    name = serializers.CharField(help_text="In the request's language.")
    coverage = serializers.ChoiceField(choices=[c.value for c in Coverage])
    coverage_label = serializers.CharField()
    response_minutes = serializers.IntegerField(
        help_text="The most time to a first answer on an incident that stops the servers."
    )
    replacement_hours = serializers.IntegerField(
        help_text="The most time to replace a failed part."
    )
    os_driver_upkeep = serializers.BooleanField(
        help_text="The host keeps the OS, the GPU driver and CUDA or ROCm up to date."
    )
    monitoring = serializers.BooleanField(help_text="The host watches the GPUs and acts.")
    backups = serializers.BooleanField(help_text="The system disks are backed up daily.")
    monthly = serializers.CharField(help_text="Per server and month, a decimal string.")
    currency = serializers.CharField()
    included_operations = serializers.ListField(child=serializers.CharField())
    is_default = serializers.BooleanField(
        required=False, help_text="The tier a request without service_tier gets."
    )


class CloudOfferSchema(serializers.Serializer):
    provider = serializers.CharField()
    instance = serializers.CharField(help_text="The provider's instance type.")
    region = serializers.CharField()
    gpu_count = serializers.IntegerField(help_text="GPUs in the instance.")
    price_per_gpu_hour = serializers.CharField(
        help_text="The instance's hourly price divided by its GPUs, as a decimal string."
    )
    currency = serializers.CharField(help_text="As published: USD, never converted.")
    spot = serializers.BooleanField()
    observed_on = serializers.DateField(help_text="The day the provider's catalog was read.")
    source = serializers.CharField(help_text="The price source that read it.")


class ReservedCloudPriceSchema(serializers.Serializer):
    provider = serializers.CharField()
    commitment = serializers.CharField(help_text="reserved_1y or reserved_3y.")
    price_per_gpu_hour = serializers.CharField()
    currency = serializers.CharField()
    observed_on = serializers.DateField()
    source = serializers.CharField()
    stale = serializers.BooleanField()


class TcoResponseSchema(serializers.Serializer):
    currency = serializers.CharField()
    horizon_months = serializers.IntegerField()
    utilization = serializers.CharField()
    options = serializers.DictField(child=OptionCostSchema())
    break_even_month = BreakEvenSchema()
    cheapest = serializers.CharField()
    sensitivity = SensitivityRowSchema(many=True)
    it_energy_kwh_per_year = serializers.FloatField()
    facility_energy_kwh_per_year = serializers.FloatField()
    co2e_kg_per_year = serializers.FloatField()
    book_values = serializers.ListField(child=serializers.DictField())
    assumptions = AssumptionSchema(many=True)
    explanations = serializers.ListField(child=serializers.CharField())
    managed_offer = ManagedOfferSchema(
        allow_null=True, help_text="The host's managed-hosting price of one server, per term."
    )
    market_offers = CloudOfferSchema(
        many=True,
        required=False,
        help_text="The five cheapest on-demand cloud offers for the configuration's GPU, from the "
        "providers' own catalogs (gpuhunt format), cheapest first; in USD as published, whatever "
        "the answer's currency. Empty when no offer is recorded.",
    )
    reserved_cloud_price = ReservedCloudPriceSchema(
        allow_null=True,
        required=False,
        help_text="The cheapest reserved (1 or 3 years) cloud price per GPU-hour recorded for the "
        "GPU, in the answer's currency; null when none is.",
    )
    service_tier = ServiceTierSchema(
        allow_null=True,
        help_text="The managed offer's service tier: its price per server and month is the "
        "managed option's support line, on top of the hosting fee.",
    )
    recommendation = RecommendationSchema(
        allow_null=True,
        help_text="With a workload: the option built, why, and what it costs each way.",
    )
    job = JobCostSchema(
        allow_null=True,
        help_text="With a training or fine-tuning workload: one run rented or bought; the "
        "options then read as running such jobs continuously. Null otherwise.",
    )
    configuration = OptionSchema(required=False)
    configuration_exchange_rates = ExchangeRateSerializer(
        many=True,
        required=False,
        help_text="With `configuration`: the rates its parts' prices were converted at, as "
        "`exchange_rates` of POST /api/v1/configurations/ (the same as the `usd_per_eur` "
        "assumption).",
    )
