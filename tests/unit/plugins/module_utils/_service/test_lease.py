"""The advisory lease on load balancers and the "last reconciled" marker (docs/reconciliation.md, Whole services)."""
import pytest

from ansible_collections.anxcloud.lbaas.plugins.module_utils._service._declaration import ServiceDeclaration
from ansible_collections.anxcloud.lbaas.plugins.module_utils._engine._errors import RateLimitedError
from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._failure import Failure
from ansible_collections.anxcloud.lbaas.plugins.module_utils._lbaas._lease import LeaseTag, Leases, default_holder
from ansible_collections.anxcloud.lbaas.plugins.module_utils._service._declaration import Desired
from ansible_collections.anxcloud.lbaas.plugins.module_utils._service._guard import ServiceGuard
from ansible_collections.anxcloud.lbaas.plugins.module_utils._service._marker import (
    SCHEME, Marker, declaration_hash, refuse_newer)
from ansible_collections.anxcloud.lbaas.plugins.module_utils._engine._version import COLLECTION_VERSION

from ..fakes import FakeClient

LB1 = {"id": "a" * 32, "name": "lb1"}
LB2 = {"id": "b" * 32, "name": "lb2"}
NOW = 1800000000


def lb_client():
    """A fake Engine holding the two load balancers."""
    client = FakeClient()
    for lb in (LB1, LB2):
        client.add("loadbalancer", lb["name"], ident=lb["id"])
    return client


def tags(client, lb):
    return sorted(client.tags.get(lb["id"], ()))


def leases_for(client, holder="web@ctl:1", sleeps=None, **kwargs):
    def tags_of(ident):
        return [t["name"] for t in client.resource_get(ident)["tags"]]
    return Leases(client, "anxlb", holder, 600, tags_of, clock=lambda: NOW,
                  sleep=(sleeps if sleeps is not None else []).append, **kwargs)


def test_the_lease_tag_round_trips_and_ignores_other_tags():
    tag = LeaseTag("anxlb", "web@ctl-1:42", NOW).name
    assert tag == "anxlb-lease=web@ctl-1:42@%d" % NOW
    parsed = LeaseTag.parse("anxlb", tag)
    assert (parsed.holder, parsed.expiry) == ("web@ctl-1:42", NOW)
    assert LeaseTag.parse("anxlb", "anxlb-svc=web") is None and LeaseTag.parse("anxlb", "anxlb-lease=x@soon") is None
    assert LeaseTag.parse("other", tag) is None


def test_default_holder_names_service_host_and_process():
    service, rest = default_holder("web").split("@", 1)
    host, pid = rest.rsplit(":", 1)
    assert service == "web" and host and pid.isdigit()


def test_acquire_attaches_reads_back_and_release_removes():
    client = lb_client()
    leases = leases_for(client)
    assert leases.acquire([LB1, LB2], {LB1["id"]: [], LB2["id"]: ["anxlb-svc=other"]}) is False
    assert tags(client, LB1) == ["anxlb-lease=web@ctl:1@%d" % (NOW + 600)]
    # the attaches one after another (tag writes are serialised), then both read back at once
    assert [c[0] for c in client.calls] == ["TAG", "TAG", "GET", "GET"]
    assert leases.release() == [] and tags(client, LB1) == [] and tags(client, LB2) == []


def test_a_live_lease_of_another_run_fails_naming_the_holder_and_writes_nothing():
    client = lb_client()
    theirs = LeaseTag("anxlb", "web@other:7", NOW + 60).name
    with pytest.raises(Failure) as err:
        leases_for(client).acquire([LB1], {LB1["id"]: [theirs]})
    assert err.value.msg == (
        "load balancer lb1 is leased by web@other:7 (until 2027-01-15T08:01:00Z): another run is reconciling it. "
        "Retry later, or if that run is gone, remove the tag '%s' from the load balancer (%s)" % (theirs, LB1["id"]))
    assert err.value.details["lease_holder"] == "web@other:7" and client.writes() == []


def test_a_run_that_attached_at_the_same_time_makes_both_give_way():
    client = lb_client()
    theirs = LeaseTag("anxlb", "aaa-first@other:7", NOW + 60).name
    client.tags[LB1["id"]] = [theirs]          # attached after we read the tags, before we read back
    client.entities[theirs] = "e" * 32
    leases = leases_for(client)
    with pytest.raises(Failure) as err:
        leases.acquire([LB1, LB2], {LB1["id"]: [], LB2["id"]: []})
    assert "leased by aaa-first@other:7" in err.value.msg
    assert tags(client, LB1) == [theirs] and tags(client, LB2) == [] and leases.held == []


def test_a_live_lease_on_the_second_load_balancer_fails_before_anything_is_written():
    client = lb_client()
    theirs = LeaseTag("anxlb", "x@y:1", NOW + 5).name
    client.entities[theirs] = "e" * 32
    leases = leases_for(client)
    with pytest.raises(Failure):
        leases.acquire([LB1, LB2], {LB1["id"]: [], LB2["id"]: [theirs]})
    assert tags(client, LB1) == [] and client.writes() == []
    assert client.entities == {theirs: client.entities[theirs]}   # theirs is not ours to touch


def test_a_failure_after_attaching_releases_every_lease_taken():
    client = lb_client()
    theirs = LeaseTag("anxlb", "x@y:1", NOW + 5).name
    client.entities[theirs] = "e" * 32
    leases = leases_for(client)
    read = client.resource_get

    def another_run_attached(ident):   # LB2 shows another live lease when read back
        if ident == LB2["id"]:
            client.tags.setdefault(ident, []).append(theirs)
        return read(ident)
    client.resource_get = another_run_attached
    with pytest.raises(Failure):
        leases.acquire([LB1, LB2], {LB1["id"]: [], LB2["id"]: []})
    assert tags(client, LB1) == [] and tags(client, LB2) == [theirs]
    assert [c[0] for c in client.calls][:4] == ["TAG", "TAG", "GET", "GET"] and "UNTAG" in [c[0] for c in client.calls]
    assert client.entities == {theirs: client.entities[theirs]}   # ours are deleted, theirs is not ours to touch


def test_an_expired_lease_is_taken_over_after_a_pause():
    client = lb_client()
    stale = LeaseTag("anxlb", "web@crashed:9", NOW - 1).name
    client.tags[LB1["id"]] = [stale]
    sleeps = []
    leases = leases_for(client, sleeps=sleeps)
    assert leases.acquire([LB1], {LB1["id"]: [stale]}) is True
    assert tags(client, LB1) == ["anxlb-lease=web@ctl:1@%d" % (NOW + 600)] and sleeps == [2.0]
    assert [(lb["name"], lease.holder) for lb, lease in leases.taken_over] == [("lb1", "web@crashed:9")]


def test_our_own_lease_does_not_block_us():
    client = lb_client()
    mine = LeaseTag("anxlb", "web@ctl:1", NOW + 60).name
    assert leases_for(client).others([mine]) == []


def test_release_reports_what_it_could_not_remove():
    client = lb_client()
    leases = leases_for(client)
    leases.acquire([LB1], {LB1["id"]: []})

    def refuse(ident, tag):
        raise RateLimitedError("not sent", status=429, method="DELETE", path="/p")
    client.tag_remove = refuse
    left = leases.release()
    assert [(lb["name"], lease.holder) for lb, lease in left] == [("lb1", "web@ctl:1")] and leases.held == []


def test_marker_names_scheme_version_and_hash():
    marker = Marker.ours("anxlb", "web", "0123456789abcdef", clock=lambda: NOW + 0.7)
    assert marker.name == "anxlb-reconciled.web=%d,%s,0123456789abcdef,%d" % (SCHEME, COLLECTION_VERSION, NOW)
    found = Marker.find("anxlb", "web", [marker.name, "anxlb-reconciled.webshop=1,0.1.0,x,1", "anxlb-svc=web"])
    assert [m.name for m in found] == [marker.name]
    assert found[0].as_dict() == {"scheme": SCHEME, "collection_version": COLLECTION_VERSION,
                                  "declaration_hash": "0123456789abcdef", "reconciled_at": "2027-01-15T08:00:00Z"}


def test_a_marker_of_a_newer_scheme_is_refused_an_equal_or_older_one_is_not():
    refuse_newer(LB1, Marker.find("anxlb", "web", ["anxlb-reconciled.web=%d,0.0.1,abc" % SCHEME]))
    newer = "anxlb-reconciled.web=%d,9.0.0,abc" % (SCHEME + 1)
    with pytest.raises(Failure) as err:
        refuse_newer(LB1, Marker.find("anxlb", "web", [newer]))
    assert err.value.msg == (
        "service web on load balancer lb1 was last reconciled by anxcloud.lbaas 9.0.0 with naming scheme %d; "
        "this collection (%s) knows scheme %d and would misread those objects: upgrade the collection"
        % (SCHEME + 1, COLLECTION_VERSION, SCHEME))
    with pytest.raises(Failure):
        refuse_newer(LB1, Marker.find("anxlb", "web", ["anxlb-reconciled.web=garbage"]))


def test_the_declaration_hash_is_stable_and_changes_with_the_declaration():
    one = {"backends": [{"name": "http.web", "mode": "tcp"}]}
    assert declaration_hash(one) == declaration_hash({"backends": [{"mode": "tcp", "name": "http.web"}]})
    assert declaration_hash(one) != declaration_hash({"backends": [{"name": "http.web", "mode": "http"}]})
    assert len(declaration_hash(one)) == 16


class State:
    def __init__(self, lb_tags):
        self.lbs = [LB1]
        self.lb_tags = lb_tags


def guard(client):
    params = {"tag_prefix": "anxlb", "name": "web", "lease_holder": "web@ctl:1", "lease_timeout": 600}
    return ServiceGuard(client, ServiceDeclaration.from_params(params), Desired(), warn=lambda msg: None)


def test_the_guard_observes_again_only_when_another_run_wrote_in_between():
    client = lb_client()
    marker = "anxlb-reconciled.web=1,0.1.0,abc,%d" % NOW
    client.tags[LB1["id"]] = [marker]
    assert guard(client).before_apply(State({LB1["id"]: [marker]}), None) is False
    client = lb_client()
    client.tags[LB1["id"]] = ["anxlb-reconciled.web=1,0.1.0,abc,%d" % (NOW + 9)]   # rewritten meanwhile
    assert guard(client).before_apply(State({LB1["id"]: [marker]}), None) is True


def test_the_guard_replaces_the_marker_and_absent_removes_it():
    client = lb_client()
    old = "anxlb-reconciled.web=1,0.1.0,abc,1"
    client.tags[LB1["id"]] = [old, "anxlb-svc=keep"]
    g = guard(client)
    g.lb_tags = {LB1["id"]: [old, "anxlb-svc=keep"]}
    g.mark([LB1])
    (new,) = [t for t in client.tags[LB1["id"]] if t.startswith("anxlb-reconciled.web=")]
    assert new.startswith("anxlb-reconciled.web=1,%s,%s," % (COLLECTION_VERSION, g.digest)) and new != old
    g.lb_tags = {LB1["id"]: sorted(client.tags[LB1["id"]])}
    g.mark([LB1], absent=True)
    assert client.tags[LB1["id"]] == ["anxlb-svc=keep"]


# ---- bounded: released leases and replaced markers leave no tag entity ------------------------
def test_a_released_lease_leaves_no_tag_entity():
    client = lb_client()
    leases = leases_for(client)
    leases.acquire([LB1, LB2], {LB1["id"]: [], LB2["id"]: []})
    assert len(client.entities) == 1    # one name per run, shared by its load balancers
    assert leases.release() == [] and client.entities == {} and leases.leftovers == []
    assert ("DELETE TAG", "%032x" % 10 ** 6, "svc") in client.calls   # with its assignment's service


def test_one_run_takes_one_lease_name_released_once_when_no_load_balancer_keeps_it():
    """The leases of one ``acquire`` share a name (one tag entity) even when the clock ticks between attaches; its
    entity is deleted once, and not while a load balancer keeps the lease (it expires there on its own)."""
    client = lb_client()
    ticks = iter(range(NOW, NOW + 100))
    leases = Leases(client, "anxlb", "web@ctl:1", 600, lambda ident: tags(client, {"id": ident}),
                    clock=lambda: next(ticks), sleep=lambda s: None)
    leases.acquire([LB1, LB2], {LB1["id"]: [], LB2["id"]: []})
    (name,) = set(lease.name for _lb, lease in leases.held)
    assert tags(client, LB1) == tags(client, LB2) == [name] and list(client.entities) == [name]
    assert leases.release() == [] and client.entities == {}
    assert len([c for c in client.calls if c[0] == "DELETE TAG"]) == 1

    client = lb_client()
    leases = leases_for(client)
    leases.acquire([LB1, LB2], {LB1["id"]: [], LB2["id"]: []})
    untag = client.tag_remove

    def refuse_on_lb2(ident, tag):
        if ident == LB2["id"]:
            raise RateLimitedError("not sent", status=429, method="DELETE", path="/api/core/v1/resource.json/x")
        untag(ident, tag)
    client.tag_remove = refuse_on_lb2
    (left,) = leases.release()
    assert left[0] == LB2 and tags(client, LB2) == [left[1].name] and list(client.entities) == [left[1].name]
    assert [c for c in client.calls if c[0] == "DELETE TAG"] == []


def test_an_expired_lease_taken_over_loses_its_tag_entity_too():
    client = lb_client()
    stale = LeaseTag("anxlb", "web@crashed:9", NOW - 1).name
    client.tag_add(LB1["id"], stale)
    leases = leases_for(client)
    leases.acquire([LB1], {LB1["id"]: [stale]})
    assert stale not in client.entities
    leases.release()
    assert client.entities == {}


def test_an_attach_the_read_back_does_not_show_fails_the_lease():
    client = lb_client()
    client.tag_add = lambda ident, tag: client.calls.append(("TAG", tag, ident))   # accepted, never there
    leases = leases_for(client)
    with pytest.raises(Failure) as err:
        leases.acquire([LB1], {LB1["id"]: []})
    assert err.value.msg == ("could not take the lease on load balancer lb1: the tag 'anxlb-lease=web@ctl:1@%d' is "
                             "not on it after attaching it" % (NOW + 600))
    assert leases.held == []


def test_a_lease_entity_that_cannot_be_deleted_is_a_leftover_not_a_failure():
    client = lb_client()
    leases = leases_for(client)
    leases.acquire([LB1], {LB1["id"]: []})

    def refuse(ident, service):
        raise RateLimitedError("not sent", status=429, method="DELETE", path="/api/core/v1/tags.json/x")
    client.tag_entity_delete = refuse
    assert leases.release() == [] and tags(client, LB1) == []
    assert [name for name, _exc in leases.leftovers] == ["anxlb-lease=web@ctl:1@%d" % (NOW + 600)]


def marked_runs(client, runs, lbs=(LB1,), digest_of=lambda run: "d%d" % (run % 3)):
    """``runs`` writing runs of service web: lease, mark, release, each in the same second."""
    for run in range(runs):
        g = guard(client)
        g.digest = digest_of(run)
        g.lb_tags = dict((lb["id"], tags(client, lb)) for lb in lbs)
        g.leases.acquire(list(lbs), g.lb_tags)
        g.mark(list(lbs))
        g.release()


def test_fifty_writing_runs_leave_one_marker_entity_and_no_lease_entity():
    client = lb_client()
    client.tag_add(LB1["id"], "anxlb-svc=web")
    client.tag_add(LB2["id"], "anxlb-svc=web")
    marked_runs(client, 50, lbs=(LB1, LB2))
    (marker,) = [t for t in tags(client, LB1) if t.startswith("anxlb-reconciled.web=")]
    assert tags(client, LB1) == tags(client, LB2) == sorted(["anxlb-svc=web", marker])
    assert sorted(client.entities) == sorted(["anxlb-svc=web", marker])   # owner tag + the current marker


def test_every_writing_run_writes_a_new_marker_even_within_one_second():
    client = lb_client()
    seen = []
    for _run in range(3):
        marked_runs(client, 1, digest_of=lambda run: "same")
        seen.append([t for t in tags(client, LB1) if t.startswith("anxlb-reconciled.")][0])
    assert len(set(seen)) == 3   # a concurrent run comparing markers always sees that another one wrote
    stamps = [Marker.find("anxlb", "web", [t])[0].stamp for t in seen]
    assert stamps == sorted(set(stamps))   # strictly newer, though the runs took well under a second


def test_a_replaced_marker_entity_stays_while_another_load_balancer_carries_it():
    client = lb_client()
    old = "anxlb-reconciled.web=1,0.1.0,abc,1"
    client.tag_add(LB1["id"], old)
    client.tag_add(LB2["id"], old)    # a load balancer this run does not mark
    g = guard(client)
    g.lb_tags = {LB1["id"]: [old]}
    g.mark([LB1])
    assert old in client.entities and old in tags(client, LB2)
    g.lb_tags = {LB2["id"]: [old]}
    g.mark([LB2], absent=True)
    assert old not in client.entities


def guarded_run(client, old):
    """A writing run of the guard on LB1 that replaces ``old``: the calls up to its writes, and those of its end."""
    g = guard(client)
    state = State({LB1["id"]: tags(client, LB1)})
    g.inspect(state, check_mode=False)
    actions = g.marker_actions([([LB1], False)])
    assert g.before_apply(state, None) is False
    before = len(client.calls)
    for action in actions:
        g.write(action)        # the marker replaced, in the applier's tag lane
    end = len(client.calls)
    g.finish()
    return client.calls[:before], client.calls[end:]


def test_the_guard_looks_up_what_its_end_deletes_once_the_lease_is_held_and_decides_at_the_end():
    """The tag entities of the lease and of the marker the run replaces are looked up as soon as the lease is held
    (``before_apply``: here at once, on the run's pool while it writes), so its end only detaches, checks that no
    load balancer carries the replaced marker, and deletes."""
    client = lb_client()
    old = "anxlb-reconciled.web=1,0.1.0,abc,1"
    client.tag_add(LB1["id"], old)
    start, end = guarded_run(client, old)
    lease = [c[1] for c in start if c[0] == "TAG" and "-lease=" in c[1]][0]
    assert [c for c in start if c[:2] == ("GET", "tag entities")] == [("GET", "tag entities", lease),
                                                                      ("GET", "tag entities", old)]
    assert [c[:2] for c in end if c[0] == "GET"] == [("GET", "tagged")]   # only: does a load balancer carry it?
    assert [c[0] for c in end if c[0] in ("UNTAG", "DELETE TAG")] == ["UNTAG", "DELETE TAG", "DELETE TAG"]
    assert old not in client.entities and lease not in client.entities
    (new,) = [t for t in tags(client, LB1) if t.startswith("anxlb-reconciled.web=")]
    assert new in client.entities

    client = lb_client()   # the old marker is on LB2 too, which this run does not mark: looked up, not deleted
    client.tag_add(LB1["id"], old)
    client.tag_add(LB2["id"], old)
    start, end = guarded_run(client, old)
    assert ("GET", "tag entities", old) in start
    assert old in client.entities and old in tags(client, LB2)
    assert len([c for c in end if c[0] == "DELETE TAG"]) == 1   # the lease's


def test_only_marker_names_of_this_service_are_deleted_never_owner_tags_or_other_services():
    client = lb_client()
    keep = ["anxlb-svc=web", "anxlb-reconciled.webshop=1,0.1.0,x,5", "anxlb-reconciled.web2=1,0.1.0,y,5"]
    for tag in keep + ["anxlb-reconciled.web=1,0.1.0,abc,1"]:
        client.tag_add(LB1["id"], tag)
    g = guard(client)
    g.lb_tags = {LB1["id"]: tags(client, LB1)}
    g.mark([LB1], absent=True)
    assert tags(client, LB1) == sorted(keep) and sorted(client.entities) == sorted(keep)


def test_the_longest_names_fit_the_engines_tag_length():
    from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._names import (
        HOLDER_MAX, OWNER_MAX, TAG_MAX, TAG_PREFIX_MAX, is_tag_name)
    prefix, owner = "p" * TAG_PREFIX_MAX, "o" * OWNER_MAX
    marker = Marker.ours(prefix, owner, "f" * 16, clock=lambda: 9999999999)
    lease = LeaseTag(prefix, default_holder(owner, host="h" * 253, pid=4194304), 9999999999)
    assert len(default_holder(owner, host="h" * 253, pid=4194304)) <= HOLDER_MAX
    for name in (marker.name, lease.name, "%s-svc=%s" % (prefix, owner)):
        assert len(name) <= TAG_MAX and is_tag_name(name), name


def test_the_guard_validates_the_names_it_builds_tags_from():
    client = lb_client()
    base = {"tag_prefix": "anxlb", "name": "web", "lease_holder": None, "lease_timeout": 600}
    for key, value, option in (("name", "a/b", "name"), ("tag_prefix", "Anx", "tag_prefix"),
                               ("lease_holder", "me, myself", "lease_holder"), ("name", "x" * 64, "name")):
        with pytest.raises(Failure) as err:
            ServiceGuard(client, ServiceDeclaration.from_params(dict(base, **{key: value})), Desired(), warn=lambda msg: None)
        assert err.value.msg.startswith("%s must be " % option) and err.value.details["option"] == option
    assert client.calls == []


def test_a_marker_says_whether_its_declaration_had_allow_lists_when_it_fits():
    """The fifth field: "open" (no allow-list) or "allow"; left out when the tag would be too long with it,
    and absent from markers of earlier runs (then it says nothing: None)."""
    for open_, flag in ((True, ",open"), (False, ",allow"), (None, "")):
        marker = Marker.ours("anxlb", "web", "0123456789abcdef", clock=lambda: NOW, open_=open_)
        assert marker.name == "anxlb-reconciled.web=%d,%s,0123456789abcdef,%d%s" % (SCHEME, COLLECTION_VERSION, NOW, flag)
        (found,) = Marker.find("anxlb", "web", [marker.name])
        assert (found.open, found.digest, found.stamp) == (open_, "0123456789abcdef", NOW)
    (old,) = Marker.find("anxlb", "web", ["anxlb-reconciled.web=1,0.1.0,abc,1"])
    assert old.open is None
    from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._names import TAG_MAX
    bare = Marker.ours("anxlb", "w", "0123456789abcdef", clock=lambda: NOW).name
    name = "w" * (1 + TAG_MAX - len(bare) - 2)   # fits without the flag, not with it
    marker = Marker.ours("anxlb", name, "0123456789abcdef", clock=lambda: NOW, open_=True)
    assert len(marker.name) == TAG_MAX - 2 and marker.open is None and marker.name.endswith(",%d" % NOW)
