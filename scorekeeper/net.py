"""This machine's address on the home network, for the players' tablets to open."""

import socket

# Never routed and never reached: connect() on a UDP socket only picks the outgoing
# interface, and no packet leaves since nothing is sent.
_PROBE_ADDRESS = ("10.255.255.255", 1)


def lan_address() -> str:
    """The IPv4 address other devices on the LAN can reach, or 127.0.0.1 if there is none."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(_PROBE_ADDRESS)
            address = probe.getsockname()[0]
        if address and address != "0.0.0.0":
            return address
    except OSError:
        pass
    try:
        return socket.gethostbyname(socket.gethostname())
    except OSError:
        return "127.0.0.1"
