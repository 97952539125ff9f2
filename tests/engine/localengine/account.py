"""The one customer (and its reseller) that owns everything in the local Engine."""
CUSTOMER = "0000000000000000000000000000c0de"
RESELLER = "000000000000000000000000000000ee"

CUSTOMER_OBJECT = {"customer_id": "C0DE", "demo": False, "identifier": CUSTOMER, "name": "Local Customer",
                   "name_slug": "local-customer", "reseller": RESELLER}
RESELLER_OBJECT = {"identifier": RESELLER, "name": "Local Reseller"}
