"""IPAM address facts (``_model._ipam``): what the address runs and check mode's predictions both read."""
from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._ipam import canonical, description, looks_unclaimed


def test_canonical_is_the_one_spelling_of_an_address():
    assert canonical("2001:DB8:0:0::1") == "2001:db8::1"
    assert canonical("10.0.0.7") == "10.0.0.7"


def test_an_allocation_names_its_owner_in_its_description():
    assert description("web") == "anxcloud.lbaas: web"


def test_only_an_object_without_description_and_with_the_default_role_looks_unclaimed():
    assert looks_unclaimed({"description_customer": "", "role_text": "Default"})
    assert looks_unclaimed({})
    assert not looks_unclaimed({"description_customer": description("web"), "role_text": "Default"})
    assert not looks_unclaimed({"description_customer": "", "role_text": "Gateway"})
