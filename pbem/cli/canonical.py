from __future__ import annotations

import sys
from pathlib import Path

import click

from pbem.cli.common import echo, handles_errors


@click.command("canonical")
@click.argument("packet_file", type=click.Path(dir_okay=False))
@click.option("--signature", "signature_out", type=click.Path(dir_okay=False),
              help="Also write the packet's signature as an armored SSH signature file.")
@handles_errors
def command(packet_file: str, signature_out: str | None) -> None:
    """Print the exact bytes a packet's signature covers, for checking it without pbem:

    pbem canonical P.yaml --signature P.sig > P.bytes && ssh-keygen -Y verify -f allowed_signers -I SIDE -n
    pbem-packet-v1 -s P.sig < P.bytes

    Two commands, not a pipe: ssh-keygen could read P.sig before pbem has written it. allowed_signers
    has a line `SIDE ssh-ed25519 AAAA...` with the signer's public key."""
    from pbem.core import game, keys
    from pbem.core.errors import FileError, VerificationError
    from pbem.core.packet import signature_blob, signed_bytes

    if signature_out and Path(signature_out).exists():   # the packet itself, by a slip for P.sig
        raise FileError(f"{signature_out} already exists; pbem never overwrites it (nothing was written)")
    packet, _ = game.read_packet(Path(packet_file), packet_file, given="canonical")
    if signature_out:
        if "signature" not in packet:
            raise VerificationError(f"{packet_file}: the packet is not signed")
        # a probe: a value that was no base64 failed with a traceback, or wrote an empty signature
        blob = signature_blob(packet, packet_file)
        try:
            keys.sshsig_public_key(blob)
        except VerificationError as exc:
            raise VerificationError(f"{packet_file}: the signature value is no SSH signature ({exc.message})") from None
        game.write_new(Path(signature_out), keys.armor(blob))
    data = signed_bytes(packet)
    if sys.stdout.isatty():  # for a pipe, the exact bytes; for a terminal, nothing it would obey
        echo(data.decode("utf-8"))
        return
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()
