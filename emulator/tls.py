"""TLS for `--tls`: HTTPS and WSS on the emulator's one port, with a certificate given or one made here.

google-genai dials the Live API at `wss://` whatever its base URL's scheme says (live.py: `_websocket_base_url`
replaces the scheme), so an unmodified SDK needs a TLS listener it trusts. The certificate made here is
self-signed and is its own CA (basicConstraints CA with path length 0, name constraints to the names it serves,
key usage, subject and authority key ids: what OpenSSL's strict verification and Python 3.13's VERIFY_X509_STRICT
require), for localhost, 127.0.0.1, ::1 and the host served. It is kept in DEFAULT_DIR and reused while it has more
than a week to live, so `gemini-emulator env --tls` and the server agree on it without talking to each other.
What each SDK needs to trust it:

- google-genai (Python) and httpx read SSL_CERT_FILE, which replaces their CA bundle: the emulator writes a bundle
  of certifi's CAs plus its own certificate (bundle.pem), so other HTTPS keeps working;
- Node (@google/genai) reads NODE_EXTRA_CA_CERTS, added to its own CAs: the certificate itself.
"""

from __future__ import annotations

import datetime
import ipaddress
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cryptography import x509

CERT_NAME, KEY_NAME, BUNDLE_NAME = "cert.pem", "key.pem", "bundle.pem"
VALID_DAYS = 365
RENEW_DAYS = 7
_LOOPBACK_NAMES = ("localhost",)
_LOOPBACK_IPS = ("127.0.0.1", "::1")


def default_dir() -> Path:
    """Where a generated certificate lives: $XDG_CACHE_HOME (or ~/.cache)/gemini-emulator/tls."""
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "gemini-emulator" / "tls"


@dataclass(frozen=True)
class Certificate:
    cert: Path  # PEM certificate (chain) the server presents
    key: Path  # its private key
    bundle: Path  # what SSL_CERT_FILE should name (certifi's CAs and the certificate, or the certificate alone)


def resolve(cert: str | None, key: str | None, host: str, directory: Path | None = None) -> Certificate:
    """The certificate to serve: the one given (`cert` and `key` together), else a generated one for `host`."""
    if cert or key:
        if not (cert and key):
            raise ValueError("--tls-cert and --tls-key go together")
        for path in (cert, key):
            if not Path(path).is_file():
                raise ValueError(f"no such file: {path}")
        return Certificate(Path(cert), Path(key), Path(cert))
    return generated(host, directory or default_dir())


def generated(host: str, directory: Path) -> Certificate:
    """The emulator's own certificate in `directory`, made (or remade) when missing, expiring or not for `host`."""
    from cryptography import x509

    cert_path, key_path, bundle_path = directory / CERT_NAME, directory / KEY_NAME, directory / BUNDLE_NAME
    if cert_path.is_file() and key_path.is_file() and bundle_path.is_file():
        try:
            existing = x509.load_pem_x509_certificate(cert_path.read_bytes())
            left = existing.not_valid_after_utc - datetime.datetime.now(datetime.UTC)
            if left > datetime.timedelta(days=RENEW_DAYS) and _covers(existing, host) and _constrained(existing):
                return Certificate(cert_path, key_path, bundle_path)
        except ValueError:
            pass
    directory.mkdir(parents=True, exist_ok=True)
    cert_pem, key_pem = _make(host)
    _write(key_path, key_pem, private=True)
    _write(cert_path, cert_pem)
    _write(bundle_path, _certifi() + cert_pem)
    return Certificate(cert_path, key_path, bundle_path)


def _names(host: str) -> tuple[list[str], list[str]]:
    names, ips = list(_LOOPBACK_NAMES), list(_LOOPBACK_IPS)
    bare = host.strip("[]")
    if bare and bare not in ("0.0.0.0", "::"):
        try:
            ipaddress.ip_address(bare)
            if bare not in ips:
                ips.append(bare)
        except ValueError:
            if bare not in names:
                names.append(bare)
    return names, ips


def _covers(cert: object, host: str) -> bool:
    from cryptography import x509

    assert isinstance(cert, x509.Certificate)
    try:
        san = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except x509.ExtensionNotFound:
        return False
    have_names = set(san.get_values_for_type(x509.DNSName))
    have_ips = {str(ip) for ip in san.get_values_for_type(x509.IPAddress)}
    names, ips = _names(host)
    return set(names) <= have_names and set(ips) <= have_ips


def _permitted(names: list[str], ips: list[str]) -> list[x509.GeneralName]:
    from cryptography import x509

    permitted: list[x509.GeneralName] = [x509.DNSName(n) for n in names]
    return permitted + [x509.IPAddress(ipaddress.ip_network(ip)) for ip in ips]  # one address each: /32 or /128


def _constrained(cert: object) -> bool:
    """Whether a kept certificate is the constrained CA made since issue 31 (older ones are remade)."""
    from cryptography import x509

    assert isinstance(cert, x509.Certificate)
    try:
        basic = cert.extensions.get_extension_for_class(x509.BasicConstraints).value
        cert.extensions.get_extension_for_class(x509.NameConstraints)
    except x509.ExtensionNotFound:
        return False
    return basic.path_length == 0


def _make(host: str) -> tuple[bytes, bytes]:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "gemini-emulator local CA")])
    names, ips = _names(host)
    alt = [x509.DNSName(n) for n in names] + [x509.IPAddress(ipaddress.ip_address(i)) for i in ips]
    now = datetime.datetime.now(datetime.UTC)
    public = key.public_key()
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(public)
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=VALID_DAYS))
        # A CA that can sign no intermediate (path length 0) and no leaf for a name but the ones it serves: trusting
        # it (SSL_CERT_FILE, NODE_EXTRA_CA_CERTS) vouches for the emulator's names and for nothing else.
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(x509.NameConstraints(permitted_subtrees=_permitted(names, ips), excluded_subtrees=None), True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=True,
                crl_sign=True,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.SubjectAlternativeName(alt), critical=False)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(public), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(public), critical=False)
        .sign(key, hashes.SHA256())
    )
    key_pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    return cert.public_bytes(serialization.Encoding.PEM), key_pem


def _certifi() -> bytes:
    """certifi's CA bundle (what google-genai trusts by default), or nothing when certifi is absent."""
    try:
        import certifi
    except ImportError:
        return b""
    data = Path(certifi.where()).read_bytes()
    return data if data.endswith(b"\n") else data + b"\n"


def _write(path: Path, data: bytes, private: bool = False) -> None:
    """Write atomically (a reader never sees half a file), the key readable by its owner only."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600 if private else 0o644)
    with os.fdopen(descriptor, "wb") as out:
        out.write(data)
    os.replace(temporary, path)
