"""The spec's Changelog.md as the generator of src/ops/spec_table.inc reads it (gen_spec_table.py):
the section of every version of every operator of the default domain,
and the entries of its subsections (attributes, inputs, outputs, type constraints)."""
import re

# One <dt> entry of a subsection: name, its parenthesized flags (optional), its type.
ENTRY = re.compile(r"<dt><tt>([^<]+)</tt>(?: \(([^)]*)\))? : ([^<]+)</dt>")
_HEAD = re.compile(r'^### <a name="([A-Za-z0-9_]+)-(\d+)"></a>', re.M)


def versions(spec):
    """(op, version, section text) for each operator version of the default domain, in file
    order (the sections before the first non-default operator set)."""
    text = open(f"{spec}/Changelog.md", encoding="utf-8").read()
    cut = re.search(r"^## Version \d+ of the '", text, re.M)
    if cut:
        text = text[: cut.start()]
    starts = [(m.start(), m.group(1), int(m.group(2))) for m in _HEAD.finditer(text)]
    for k, (pos, op, ver) in enumerate(starts):
        end = starts[k + 1][0] if k + 1 < len(starts) else len(text)
        yield op, ver, text[pos:end]


def section(body, title):
    """The text of the subsection `#### title...` of one version's section ('' if absent)."""
    m = re.search(r"^#### " + title + r"[^\n]*\n(.*?)(?=^#### |\Z)", body, re.M | re.S)
    return m.group(1) if m else ""
