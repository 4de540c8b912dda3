"""A device's token signs in that device, with its own household's name, until it is
removed: the one query a hosted server makes on every request to know who asks."""

from scorekeeper.store.households import (
    add_device,
    create_household,
    delete_household,
    remove_device,
    signed_in_device,
)


def test_a_token_signs_in_its_device_with_its_households_name_until_removed(store):
    martin = create_household(store, "Les Martin", "hash")
    durand = create_household(store, "Les Durand", "hash")
    kitchen = add_device(store, martin, "token-kitchen", "Tablette cuisine")
    add_device(store, durand, "token-salon", "Tablette salon")

    device, name = signed_in_device(store, "token-kitchen")
    assert (device.id, device.household_id, device.name, name) == (
        kitchen,
        martin,
        "Tablette cuisine",
        "Les Martin",
    )
    device, name = signed_in_device(store, "token-salon")
    assert (device.household_id, name) == (durand, "Les Durand")
    assert signed_in_device(store, "token-unknown") is None

    remove_device(store, martin, kitchen)
    assert signed_in_device(store, "token-kitchen") is None
    delete_household(store, durand)
    assert signed_in_device(store, "token-salon") is None
