"""What the peers' tests reach for that the drop-ins do not offer: OnnxSlim's internals
(onnxslim.core.*, its vendored onnx_graphsurgeon, its argparser, its utils' other helpers).

Importing such a name succeeds and gives a placeholder, so that a test module which imports an
internal at its top still runs its other tests against the drop-in. The placeholder records that
the current test touched it (peers_plugin.py classifies a failing test that did as "OnnxSlim
internals"), and using it for anything real (calling a result, truth value, iteration, numbers,
comparison) raises OnnxSlimInternal. Calling a placeholder or reading an attribute of it gives
another placeholder: `ConvMulMatcher(1)` then `hasattr(matcher, "match")` does not fail, and such
a test's use of slim() is what decides its result (peers_plugin.py reports it as passing with
internals touched)."""
import importlib.abc
import importlib.machinery
import sys
import types

TOUCHED = []  # the internal names touched by the current test (reset by peers_plugin.py)


class OnnxSlimInternal(Exception):
    """A test used an OnnxSlim internal for a real value."""


def touch(name):
    if name not in TOUCHED:
        TOUCHED.append(name)


class Internal:
    __slots__ = ("_name",)

    def __init__(self, name, *class_parts):  # class_parts: `class X(placeholder)` in a test
        object.__setattr__(self, "_name", name)
        touch(name)

    def __repr__(self):
        return f"<OnnxSlim internal {self._name}>"

    def __getattr__(self, attr):
        if attr.startswith("_"):  # dunders and private names (pytest's probes during collection)
            raise AttributeError(attr)
        return Internal(f"{self._name}.{attr}")

    def __call__(self, *args, **kwargs):
        return Internal(f"{self._name}()")

    def __setattr__(self, attr, value):
        touch(f"{self._name}.{attr}")

    def _refuse(self, *args, **kwargs):
        raise OnnxSlimInternal(f"{self._name} is OnnxSlim's internal, not part of the drop-in")

    __bool__ = __iter__ = __len__ = __int__ = __float__ = __index__ = __getitem__ = __contains__ = _refuse
    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = __add__ = __sub__ = __mul__ = __truediv__ = _refuse
    __enter__ = __exit__ = __fspath__ = __str__ = _refuse
    __hash__ = object.__hash__


class InternalModule(types.ModuleType):
    """A module of placeholders: every attribute is an Internal, every submodule too."""

    def __getattr__(self, attr):
        if attr.startswith("_"):
            raise AttributeError(attr)
        return Internal(f"{self.__name__}.{attr}")


class _Loader(importlib.abc.Loader):
    def create_module(self, spec):
        m = InternalModule(spec.name)
        m.__path__ = []  # a package: its submodules come here too
        return m

    def exec_module(self, module):
        touch(module.__name__)


class InternalFinder(importlib.abc.MetaPathFinder):
    """Serves the given module prefixes with InternalModules."""

    def __init__(self, prefixes):
        self.prefixes = tuple(prefixes)

    def find_spec(self, fullname, path, target=None):
        if any(fullname == p or fullname.startswith(p + ".") for p in self.prefixes):
            return importlib.machinery.ModuleSpec(fullname, _Loader(), is_package=True)
        return None


def install(prefixes):
    sys.meta_path.insert(0, InternalFinder(prefixes))
