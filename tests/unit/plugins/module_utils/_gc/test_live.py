"""The live-set checks of gc (pure): a live set that keeps none of the owners found is refused unless collect_all,
a keep name that matches no owner is warned about (strict_keep: refused), keep_new names may not exist yet."""
import pytest

from ansible_collections.anxcloud.lbaas.plugins.module_utils._gc._request import GcRequest
from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._failure import Failure
from ansible_collections.anxcloud.lbaas.plugins.module_utils._gc._live import check_keep, check_not_all, live_set


def params(**over):
    out = dict(keep=[], keep_new=[], collect_all=False, strict_keep=False, remove=[], tag_prefix="anxlb")
    out.update(over)
    return GcRequest.from_params(out)


def test_the_live_set_is_keep_and_keep_new_and_none_with_remove_only():
    assert live_set(params(keep=["web"], keep_new=["api"])) == ["api", "web"]
    assert live_set(params(keep=None)) is None
    assert live_set(params(keep=None, collect_all=True)) == []
    assert live_set(params(keep=None, keep_new=["api"])) == ["api"]


def test_a_keep_typo_is_warned_about_with_the_closest_owner_and_refused_with_strict_keep():
    warnings = []
    found = ["api", "shop", "web"]
    assert check_keep(params(keep=["web", "shop", "apii"]), found, warnings.append) == ["apii"]
    assert warnings == ["keep names owner(s) that tag prefix 'anxlb' does not have: apii (did you mean api?); if a "
                        "name is misspelt, the owner it meant is collected"]
    with pytest.raises(Failure) as exc:
        check_keep(params(keep=["web", "shop", "apii"], strict_keep=True), found, warnings.append)
    assert "apii (did you mean api?)" in exc.value.msg and "strict_keep: false" in exc.value.msg
    assert exc.value.details == {"keep_unmatched": ["apii"], "removed": []}
    # keep_new names may not exist yet; names that match are fine
    assert check_keep(params(keep=["web"], keep_new=["new"], strict_keep=True), found, warnings.append) == []
    assert len(warnings) == 1


def test_collecting_every_owner_found_needs_collect_all():
    with pytest.raises(Failure) as exc:
        check_not_all(params(keep=[]), ["api", "web"], [], [])
    assert exc.value.msg == ("gc would collect every owner of tag prefix 'anxlb' it found (api, web): keep is empty. "
                             "Nothing was deleted. Check the live set (keep); to collect every owner, set collect_all: true")
    with pytest.raises(Failure) as exc:
        check_not_all(params(keep=["apii"]), ["api"], [], ["apii"])
    assert "keep names none of them (apii match no owner)" in exc.value.msg
    check_not_all(params(keep=[], collect_all=True), ["api", "web"], [], [])      # told so
    check_not_all(params(keep=["web"]), ["api"], ["web"], [])                     # web is alive
    check_not_all(params(keep=[], keep_new=["new"]), ["api"], [], [])             # new is alive, not created yet
    check_not_all(params(keep=None, remove=["api"]), [], [], [])                  # remove only: explicit
    check_not_all(params(keep=[]), [], [], [])                                    # nothing to collect
