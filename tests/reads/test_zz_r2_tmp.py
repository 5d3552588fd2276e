from tools.ynab import get_ynab_client
from tools.ynab.pacing import pacers
def test_count(live_service):
    c = get_ynab_client()
    print("USED", c.sender.pacer.used(), c.sender.pacer.limit, id(c.sender.pacer), {k: id(v) for k, v in pacers().items()})
