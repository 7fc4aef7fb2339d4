"""The sales roles; the rule lives in ``gpuquote.core.roles`` (the catalog's API asks it too)."""

from gpuquote.core.roles import MANAGER_GROUP as MANAGER_GROUP
from gpuquote.core.roles import REP_GROUP as REP_GROUP
from gpuquote.core.roles import WEBHOOK_EDITORS as WEBHOOK_EDITORS
from gpuquote.core.roles import may_change_partner_webhooks as may_change_partner_webhooks
from gpuquote.core.roles import sales_role as sales_role
from gpuquote.core.roles import user_role as user_role
