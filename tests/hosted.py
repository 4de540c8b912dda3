"""The settings of a hosted server in the tests: many households, whose links name the
address the test client asks for (http://localhost)."""

HOSTED = {"HOUSEHOLDS": True, "EXTERNAL_URL": "http://localhost"}
