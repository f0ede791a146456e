"""HTTPS on the local network: a certificate the table makes for itself on first start.

Phones give a page their camera only in a secure context, so a table whose board comes
from a phone serves HTTPS. There is no certificate authority on a club's LAN: the table
makes a self-signed certificate for its addresses once, keeps it beside its journal,
and each phone accepts it once (docs/phone.md). The key never leaves the folder.
"""

from __future__ import annotations

import datetime
import ipaddress
import logging
import os
import socket
from pathlib import Path

log = logging.getLogger("kaeshi.web")

CERT = "cert.pem"
KEY = "key.pem"
VALID_DAYS = 3650


def lan_addresses() -> list[str]:
    """This machine's addresses a phone may use (the LAN's, and the loopback)."""
    found = {"127.0.0.1"}
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("10.254.254.254", 9))  # sends nothing: picks the LAN address
            found.add(str(probe.getsockname()[0]))
    except OSError:
        pass
    return sorted(found)


def ensure_certificate(folder: Path) -> tuple[Path, Path]:
    """The certificate and key in ``folder``, made now if either is missing."""
    cert, key = folder / CERT, folder / KEY
    if cert.is_file() and key.is_file():
        return cert, key
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    folder.mkdir(parents=True, exist_ok=True)
    private = ec.generate_private_key(ec.SECP256R1())
    host = socket.gethostname() or "kaeshi"
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"Kaeshi table {host}"[:64])])
    now = datetime.datetime.now(datetime.UTC)
    alt: list[x509.GeneralName] = [x509.DNSName("localhost")]
    alt += [x509.IPAddress(ipaddress.ip_address(a)) for a in lan_addresses()]
    if host.isascii() and host.replace("-", "").replace(".", "").isalnum():
        alt.append(x509.DNSName(host))
        alt.append(x509.DNSName(f"{host}.local"))
    certificate = (
        x509.CertificateBuilder().subject_name(name).issuer_name(name)
        .public_key(private.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=VALID_DAYS))
        .add_extension(x509.SubjectAlternativeName(alt), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .sign(private, hashes.SHA256())
    )
    fd = os.open(key, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(private.private_bytes(serialization.Encoding.PEM,
                                      serialization.PrivateFormat.PKCS8,
                                      serialization.NoEncryption()))
    cert.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    log.info("made an HTTPS certificate for %s in %s", ", ".join(lan_addresses()), folder)
    return cert, key
