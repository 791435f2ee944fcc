"""pbem: a play-by-email adjudicator for board wargames."""

__version__ = "0.33.0"

# The version of each ruleset that each release of pbem plays, oldest release first. A
# genesis binds its ruleset's version (DESIGN §2.2), so a game is continued and audited only
# by a pbem that plays that version: a ruleset whose version changes makes a new release of
# pbem, with a new row here (tests/test_versions.py holds both to it). Games made before
# 0.2.0 came from development builds of 0.1.0, which played many versions of each ruleset.
RELEASES = {
    "0.2.0": {"chir": "1.3.0", "dos": "1.2.0", "kkoh": "1.4.0", "stalingrad": "1.3.0"},
    "0.3.0": {"chir": "1.3.0", "dos": "1.2.0", "kkoh": "1.5.0", "stalingrad": "1.3.0"},
    "0.4.0": {"chir": "1.4.0", "dos": "1.3.0", "kkoh": "1.6.0", "stalingrad": "1.4.0"},
    "0.5.0": {"chir": "1.4.0", "dos": "1.4.0", "kkoh": "1.7.0", "stalingrad": "1.5.0"},
    "0.6.0": {"chir": "1.5.0", "dos": "1.5.0", "kkoh": "1.8.0", "stalingrad": "1.6.0"},
    "0.7.0": {"chir": "1.5.0", "dos": "1.6.0", "kkoh": "1.8.0", "stalingrad": "1.6.0"},
    "0.8.0": {"chir": "1.5.0", "dos": "1.7.0", "kkoh": "1.8.0", "stalingrad": "1.6.0"},
    "0.9.0": {"chir": "1.6.0", "dos": "1.8.0", "kkoh": "1.9.0", "stalingrad": "1.7.0"},
    "0.10.0": {"chir": "1.7.0", "dos": "1.9.0", "kkoh": "1.10.0", "stalingrad": "1.8.0"},
    "0.11.0": {"chir": "1.7.0", "dos": "1.10.0", "kkoh": "1.10.0", "stalingrad": "1.8.0"},
    "0.12.0": {"chir": "1.8.0", "dos": "1.11.0", "kkoh": "1.11.0", "stalingrad": "1.9.0"},
    "0.13.0": {"chir": "1.9.0", "dos": "1.12.0", "kkoh": "1.12.0", "stalingrad": "1.9.0"},
    "0.14.0": {"chir": "1.9.0", "dos": "1.13.0", "kkoh": "1.13.0", "stalingrad": "1.9.0"},
    "0.15.0": {"chir": "1.9.0", "dos": "1.14.0", "kkoh": "1.14.0", "stalingrad": "1.9.0"},
    "0.16.0": {"chir": "1.10.0", "dos": "1.15.0", "kkoh": "1.15.0", "stalingrad": "1.9.0"},
    "0.17.0": {"chir": "1.11.0", "dos": "1.16.0", "kkoh": "1.16.0", "stalingrad": "1.10.0"},
    "0.18.0": {"chir": "1.11.0", "dos": "1.17.0", "kkoh": "1.17.0", "stalingrad": "1.10.0"},
    "0.19.0": {"chir": "1.12.0", "dos": "1.18.0", "kkoh": "1.18.0", "stalingrad": "1.11.0"},
    "0.20.0": {"chir": "1.13.0", "dos": "1.19.0", "kkoh": "1.19.0", "stalingrad": "1.12.0"},
    "0.21.0": {"chir": "1.13.0", "dos": "1.20.0", "kkoh": "1.20.0", "stalingrad": "1.12.0"},
    "0.22.0": {"chir": "1.13.0", "dos": "1.21.0", "kkoh": "1.20.0", "stalingrad": "1.12.0"},
    "0.23.0": {"chir": "1.13.0", "dos": "1.22.0", "kkoh": "1.20.0", "stalingrad": "1.13.0"},
    "0.24.0": {"chir": "1.14.0", "dos": "1.23.0", "kkoh": "1.21.0", "stalingrad": "1.14.0"},
    "0.25.0": {"chir": "1.15.0", "dos": "1.24.0", "kkoh": "1.22.0", "stalingrad": "1.15.0"},
    "0.26.0": {"chir": "1.16.0", "dos": "1.25.0", "kkoh": "1.23.0", "stalingrad": "1.15.0"},
    "0.27.0": {"chir": "1.16.0", "dos": "1.25.0", "kkoh": "1.24.0", "stalingrad": "1.16.0"},
    "0.28.0": {"chir": "1.16.0", "dos": "1.26.0", "kkoh": "1.24.0", "stalingrad": "1.16.0"},
    "0.29.0": {"chir": "1.16.0", "dos": "1.26.0", "kkoh": "1.25.0", "stalingrad": "1.16.0"},
    "0.30.0": {"chir": "1.17.0", "dos": "1.27.0", "kkoh": "1.26.0", "stalingrad": "1.16.0"},
    "0.31.0": {"chir": "1.17.0", "dos": "1.27.0", "kkoh": "1.27.0", "stalingrad": "1.16.0"},
    "0.32.0": {"chir": "1.18.0", "dos": "1.28.0", "kkoh": "1.28.0", "stalingrad": "1.17.0"},
    "0.33.0": {"chir": "1.19.0", "dos": "1.29.0", "kkoh": "1.29.0", "stalingrad": "1.17.0"},
}


def version_line() -> str:
    """What `pbem --version` prints: pbem's version and the ruleset versions it plays."""
    played = ", ".join(f"{ruleset} {version}" for ruleset, version in sorted(RELEASES[__version__].items()))
    return f"pbem, version {__version__} (rulesets: {played})"


def version_key(version: str) -> tuple[int, ...]:
    """A version "x.y.z" as numbers, so that 1.10.0 comes after 1.9.0."""
    return tuple(int(part) if part.isdigit() else 0 for part in version.split("."))


def releases_playing(ruleset: str, version: str) -> list[str]:
    """The releases of pbem that play `version` of `ruleset`, oldest first."""
    return [release for release, played in RELEASES.items() if played.get(ruleset) == version]
