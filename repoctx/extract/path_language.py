"""extract/path_language — which language a path is written in, from its name alone.

Invariants: pure; no I/O (content sniffing such as shebangs is out of scope);
extensions match case-insensitively; language names are lower-case identifiers.
"""

from __future__ import annotations

from typing import Final

_BY_EXTENSION: Final[dict[str, str]] = {
    ".py": "python", ".pyi": "python", ".pyw": "python",
    ".js": "javascript", ".jsx": "javascript", ".mjs": "javascript", ".cjs": "javascript",
    ".ts": "typescript", ".tsx": "typescript", ".mts": "typescript", ".cts": "typescript",
    ".go": "go", ".rs": "rust", ".java": "java", ".kt": "kotlin", ".kts": "kotlin",
    ".scala": "scala", ".swift": "swift", ".lua": "lua", ".pl": "perl", ".pm": "perl",
    ".r": "r", ".dart": "dart", ".ex": "elixir", ".exs": "elixir", ".erl": "erlang",
    ".hs": "haskell", ".clj": "clojure", ".vue": "vue", ".svelte": "svelte",
    ".c": "c", ".h": "c",
    ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".hh": "cpp", ".hpp": "cpp", ".hxx": "cpp",
    ".cs": "csharp", ".rb": "ruby", ".php": "php",
    ".sh": "shell", ".bash": "shell", ".zsh": "shell", ".ksh": "shell", ".fish": "shell",
    ".ps1": "powershell", ".bat": "batch", ".cmd": "batch",
    ".md": "markdown", ".markdown": "markdown", ".mdx": "markdown",
    ".json": "json", ".jsonc": "json", ".json5": "json", ".ipynb": "json",
    ".yml": "yaml", ".yaml": "yaml", ".toml": "toml",
    ".ini": "ini", ".cfg": "ini", ".conf": "ini", ".properties": "ini",
    ".rst": "rst", ".txt": "text", ".text": "text",
    ".html": "html", ".htm": "html", ".xhtml": "html", ".xml": "xml", ".svg": "xml",
    ".css": "css", ".scss": "scss", ".sass": "scss", ".less": "less",
    ".sql": "sql", ".proto": "protobuf", ".graphql": "graphql", ".tf": "terraform",
}

_BY_NAME: Final[dict[str, str]] = {
    "makefile": "make", "gnumakefile": "make", "dockerfile": "dockerfile",
    "containerfile": "dockerfile", "cmakelists.txt": "cmake",
    "gemfile": "ruby", "rakefile": "ruby", "vagrantfile": "ruby",
    "pipfile": "toml", "setup.cfg": "ini", "tox.ini": "ini",
    ".bashrc": "shell", ".profile": "shell", ".zshrc": "shell",
    ".gitignore": "ignore", ".repoctxignore": "ignore", ".contextpullignore": "ignore",
    ".dockerignore": "ignore", ".editorconfig": "ini", ".gitattributes": "ignore",
    "license": "text", "licence": "text", "readme": "text", "authors": "text",
    "changelog": "text", "copying": "text", "notice": "text",
}


def language_of(path: str) -> str | None:
    """Name the language of `path` by its file name or extension, or None if unknown.

    File names (`Makefile`, `Dockerfile`, `CMakeLists.txt`) win over extensions;
    `.pyi` stubs are `python`. Accepts POSIX or Windows separators.
    """
    name = path.replace("\\", "/").rsplit("/", 1)[-1].lower()
    by_name = _BY_NAME.get(name)
    if by_name is not None:
        return by_name
    dot = name.rfind(".")
    if dot <= 0:
        return None
    return _BY_EXTENSION.get(name[dot:])
