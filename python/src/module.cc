// onnxtrim._onnxtrim: the pybind11 layer over the C++ API (include/onnxtrim/onnxtrim.hpp). It only
// converts: bytes and paths to models, numpy arrays to tensors (without copying), errors to one
// exception type that onnxtrim/__init__.py turns into the classes mirroring the CLI's exit codes.
// Every call releases the GIL while C++ works and polls for signals, so Ctrl-C stops a long run.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <optional>
#include <mutex>
#include <thread>

#include "onnxtrim/onnxtrim.hpp"
#include "support/cancel.h"

int onnxtrim_cli_main(int argc, char** argv);  // tools/onnxtrim/main.cc

namespace py = pybind11;
using onnxtrim::Options;

namespace {

// Raised to Python as _onnxtrim.NativeError(exit_code, message, report_json).
struct NativeError {
  int code;
  std::string message;
  std::string report_json;
};

// Runs f on a worker thread with the GIL released; the calling thread polls Python's signal
// handlers, and on KeyboardInterrupt sets the cancel flag and waits for the worker to stop,
// then raises KeyboardInterrupt (or, with `return_when_interrupted`, returns what f returned:
// the CLI's exit code 130).
template <typename R, typename F>
R call_interruptible(Options& opts, F&& f, bool return_when_interrupted = false) {
  std::atomic<bool> cancel{false};
  opts.cancel = &cancel;
  auto body = [&]() -> R {
    onnxtrim::support::CancelScope scope(&cancel);
    return f();
  };
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  std::optional<R> result;
  std::exception_ptr err;
  {
    py::gil_scoped_release release;
    std::thread worker([&] {
      try {
        result.emplace(body());
      } catch (...) {
        err = std::current_exception();
      }
      std::lock_guard<std::mutex> lk(mu);
      done = true;
      cv.notify_all();
    });
    bool interrupted = false;
    for (;;) {
      std::unique_lock<std::mutex> lk(mu);
      if (cv.wait_for(lk, std::chrono::milliseconds(50), [&] { return done; })) break;
      lk.unlock();
      py::gil_scoped_acquire gil;
      if (PyErr_CheckSignals() != 0) {
        interrupted = true;
        cancel = true;
        PyErr_Clear();
      }
    }
    worker.join();
    if (interrupted && !(return_when_interrupted && result)) {
      py::gil_scoped_acquire gil;
      PyErr_SetNone(PyExc_KeyboardInterrupt);
      throw py::error_already_set();
    }
  }
  if (err) {
    try {
      std::rethrow_exception(err);
    } catch (const onnxtrim::VerificationFailed& e) {
      throw NativeError{e.exit_code(), e.what(), e.report().to_json()};
    } catch (const onnxtrim::Error& e) {
      throw NativeError{e.exit_code(), e.what(), ""};
    } catch (const std::bad_alloc&) {
      throw NativeError{onnxtrim::kExitInternal, "out of memory", ""};
    } catch (const std::exception& e) {
      throw NativeError{onnxtrim::kExitInternal, std::string("internal error: ") + e.what(), ""};
    }
  }
  return std::move(*result);
}

Options make_options(const std::vector<std::pair<std::string, std::string>>& settings) {
  Options o;
  o.quiet = true;
  for (const auto& [k, v] : settings) {
    try {
      o.set(k, v);
    } catch (const onnxtrim::Error& e) {
      throw NativeError{e.exit_code(), e.what(), ""};
    }
  }
  return o;
}

// Python rewrite callbacks [(name, fn(bytes) -> bytes | None)] as the options' rewriters. A
// callback runs on the library's worker thread: it takes the GIL for the call, and what the
// options hold of it is released under the GIL too (copies of the options may die anywhere).
void add_rewriters(Options& o, const py::list& rewriters) {
  for (py::handle item : rewriters) {
    auto pair = item.cast<py::tuple>();
    std::string name = pair[0].cast<std::string>();
    std::shared_ptr<py::object> fn(new py::object(pair[1].cast<py::object>()), [](py::object* p) {
      py::gil_scoped_acquire gil;
      delete p;
    });
    o.rewriters.push_back(onnxtrim::RewriteCallback{name, [fn](onnxtrim::Model& m) {
                                                      const std::string in = m.serialize();
                                                      std::string out;
                                                      {
                                                        py::gil_scoped_acquire gil;
                                                        try {
                                                          py::object r = (*fn)(py::bytes(in));
                                                          if (r.is_none()) return false;
                                                          if (!py::isinstance<py::bytes>(r))
                                                            throw std::runtime_error(
                                                                "it returned neither a model nor None/False");
                                                          out = r.cast<std::string>();
                                                        } catch (py::error_already_set& e) {
                                                          std::string what = e.what();
                                                          throw std::runtime_error(what);
                                                        }
                                                      }
                                                      if (out == in) return false;  // handed back as it was
                                                      m = onnxtrim::Model::parse(out.data(), out.size());
                                                      return true;
                                                    }});
  }
}

// A model argument: serialized bytes (viewed where Python holds them, not copied: the one extra
// copy of a model passed as a ModelProto is its SerializeToString) or a path.
struct Loaded {
  py::object owner;  // the bytes object, alive while the view is used
  const char* data = nullptr;
  size_t size = 0;
  std::string base_dir;
  std::string path;
};

Loaded source(const py::object& src, const std::string& base_dir) {
  Loaded l;
  if (py::isinstance<py::bytes>(src)) {
    char* p = nullptr;
    Py_ssize_t n = 0;
    if (PyBytes_AsStringAndSize(src.ptr(), &p, &n) != 0) throw py::error_already_set();
    l.owner = src;
    l.data = p;
    l.size = static_cast<size_t>(n);
    l.base_dir = base_dir;
    return l;
  }
  l.path = src.cast<std::string>();
  return l;
}

onnxtrim::Model load_native(const Loaded& l) {
  if (l.path.empty()) return onnxtrim::Model::parse(l.data, l.size, l.base_dir);
  return onnxtrim::Model::load(l.path);
}

int32_t onnx_dtype(const py::dtype& dt) {
  char k = dt.kind();
  size_t s = static_cast<size_t>(dt.itemsize());
  if (k == 'f') return s == 4 ? 1 : s == 8 ? 11 : s == 2 ? 10 : 0;
  if (k == 'i') return s == 1 ? 3 : s == 2 ? 5 : s == 4 ? 6 : s == 8 ? 7 : 0;
  if (k == 'u') return s == 1 ? 2 : s == 2 ? 4 : s == 4 ? 12 : s == 8 ? 13 : 0;
  if (k == 'b') return 9;
  if (k == 'c') return s == 8 ? 14 : s == 16 ? 15 : 0;
  if (k == 'U' || k == 'S' || k == 'O') return 8;
  return 0;
}

py::dtype numpy_dtype(int32_t t) {
  switch (t) {
    case 1: return py::dtype("float32");
    case 2: return py::dtype("uint8");
    case 3: return py::dtype("int8");
    case 4: return py::dtype("uint16");
    case 5: return py::dtype("int16");
    case 6: return py::dtype("int32");
    case 7: return py::dtype("int64");
    case 9: return py::dtype("bool");
    case 10: return py::dtype("float16");
    case 11: return py::dtype("float64");
    case 12: return py::dtype("uint32");
    case 13: return py::dtype("uint64");
    case 14: return py::dtype("complex64");
    case 15: return py::dtype("complex128");
    default:
      throw NativeError{onnxtrim::kExitUnsupported,
                        "an output of ONNX element type " + std::to_string(t) + " has no numpy dtype", ""};
  }
}

}  // namespace

PYBIND11_MODULE(_onnxtrim, m) {
  m.doc() = "onnxtrim's native layer; use the onnxtrim package";
  static py::exception<NativeError> native_error(m, "NativeError");
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const NativeError& e) {
      py::object type = py::reinterpret_borrow<py::object>(native_error.ptr());
      py::object exc = type(e.code, e.message, e.report_json);
      PyErr_SetObject(native_error.ptr(), exc.ptr());
    }
  });

  m.def("version", [] { return std::string(onnxtrim::version()); });

  m.def("cli_main", [](std::vector<std::string> args) {
    Options o;
    return call_interruptible<int>(
        o,
        [&] {
          std::vector<char*> argv;
          for (auto& a : args) argv.push_back(a.data());
          int rc = onnxtrim_cli_main(static_cast<int>(argv.size()), argv.data());
          std::fflush(stdout);
          std::fflush(stderr);
          return rc;
        },
        /*return_when_interrupted=*/true);
  });

  m.def("option_table", [] {
    py::list out;
    for (const auto& o : onnxtrim::option_table()) {
      py::dict d;
      d["name"] = o.name;
      d["metavar"] = o.metavar;
      d["help"] = o.help;
      d["group"] = o.group;
      d["repeatable"] = o.repeatable;
      d["optional_value"] = o.optional_value;
      d["multi_value"] = o.multi_value;
      out.append(d);
    }
    return out;
  });

  m.def("check_options",
        [](const std::vector<std::pair<std::string, std::string>>& settings) { make_options(settings); });

  // -> (model bytes or None, report json, report text)
  m.def(
      "simplify",
      [](const py::object& src, const std::string& base_dir,
         const std::vector<std::pair<std::string, std::string>>& settings, const py::list& rewriters) {
        Options o = make_options(settings);
        add_rewriters(o, rewriters);
        Loaded l = source(src, base_dir);
        auto r = call_interruptible<std::tuple<std::string, std::string, std::string>>(o, [&] {
          onnxtrim::Model model = load_native(l);
          onnxtrim::Report rep = onnxtrim::simplify(model, o);
          return std::make_tuple(model.serialize(), rep.to_json(), rep.to_text());
        });
        return py::make_tuple(py::bytes(std::get<0>(r)), std::get<1>(r), std::get<2>(r));
      },
      py::arg("src"), py::arg("base_dir"), py::arg("settings"), py::arg("rewriters") = py::list());

  m.def(
      "simplify_file",
      [](const std::string& src, const std::string& dst,
         const std::vector<std::pair<std::string, std::string>>& settings, const py::list& rewriters) {
        Options o = make_options(settings);
        add_rewriters(o, rewriters);
        auto r = call_interruptible<std::pair<std::string, std::string>>(o, [&] {
          onnxtrim::Report rep = onnxtrim::simplify_file(src, dst, o);
          return std::make_pair(rep.to_json(), rep.to_text());
        });
        return py::make_tuple(r.first, r.second);
      },
      py::arg("src"), py::arg("dst"), py::arg("settings"), py::arg("rewriters") = py::list());

  m.def("verify", [](const py::object& a, const std::string& a_dir, const py::object& b, const std::string& b_dir,
                     const std::vector<std::pair<std::string, std::string>>& settings) {
    Options o = make_options(settings);
    Loaded la = source(a, a_dir), lb = source(b, b_dir);
    auto v = call_interruptible<onnxtrim::Verification>(o, [&] {
      onnxtrim::Model ma = load_native(la), mb = load_native(lb);
      return onnxtrim::verify(ma, mb, o);
    });
    py::list outs;
    for (const auto& c : v.outputs) {
      py::dict d;
      d["name"] = c.name;
      d["max_abs"] = c.max_abs;
      d["max_rel"] = c.max_rel;
      d["scale"] = c.scale;
      d["ok"] = c.ok;
      d["why"] = c.why;
      d["comparable"] = c.comparable;
      outs.append(d);
    }
    py::dict r;
    r["ok"] = v.ok;
    r["samples"] = v.samples;
    r["rtol"] = v.rtol;
    r["atol"] = v.atol;
    r["dims"] = v.dims;
    r["outputs"] = outs;
    r["why"] = v.why;
    r["random"] = v.random;
    return r;
  });

  m.def("infer_shapes", [](const py::object& src, const std::string& base_dir,
                           const std::vector<std::pair<std::string, std::string>>& settings) {
    Options o = make_options(settings);
    Loaded l = source(src, base_dir);
    std::string out = call_interruptible<std::string>(o, [&] {
      onnxtrim::Model model = load_native(l);
      onnxtrim::infer_shapes(model, o);
      return model.serialize();
    });
    return py::bytes(out);
  });

  m.def("inspect", [](const py::object& src, const std::string& base_dir) {
    Options o;
    Loaded l = source(src, base_dir);
    return call_interruptible<std::string>(o, [&] { return onnxtrim::inspect_json(load_native(l)); });
  });

  m.def("run", [](const py::object& src, const std::string& base_dir, const py::dict& feeds, bool fast) {
    Options o;
    Loaded l = source(src, base_dir);
    std::map<std::string, onnxtrim::Tensor> in;
    std::vector<py::array> keep;  // the arrays whose memory the tensors point at
    for (auto item : feeds) {
      std::string name = item.first.cast<std::string>();
      py::array a = py::array::ensure(item.second);
      if (!a) throw NativeError{onnxtrim::kExitUsage, "input '" + name + "' is not an array", ""};
      onnxtrim::Tensor t;
      t.dtype = onnx_dtype(a.dtype());
      if (t.dtype == 0)
        throw NativeError{
            onnxtrim::kExitUsage,
            "input '" + name + "': numpy dtype " + py::str(a.dtype()).cast<std::string>() + " has no ONNX type", ""};
      for (py::ssize_t i = 0; i < a.ndim(); ++i) t.shape.push_back(static_cast<int64_t>(a.shape(i)));
      if (t.dtype == 8) {
        py::list flat = a.attr("ravel")().attr("tolist")();
        for (auto s : flat)
          t.strings.push_back(py::isinstance<py::bytes>(s) ? s.cast<std::string>() : py::str(s).cast<std::string>());
      } else {
        // C-contiguous, native byte order: the tensor points into the array (no copy).
        a = py::array::ensure(a, py::array::c_style);
        if (!a.dtype().attr("isnative").cast<bool>()) a = a.attr("astype")(a.dtype().attr("newbyteorder")("="));
        t.data = a.data();
        t.nbytes = static_cast<size_t>(a.nbytes());
        if (t.dtype == 9 && a.itemsize() != 1)
          throw NativeError{onnxtrim::kExitUsage, "input '" + name + "': bool arrays must have 1-byte items", ""};
      }
      keep.push_back(a);
      in[name] = std::move(t);
    }
    auto out = call_interruptible<std::map<std::string, onnxtrim::Tensor>>(o, [&] {
      onnxtrim::Model model = load_native(l);
      return onnxtrim::run(model, in, fast);
    });
    py::dict res;
    for (auto& [name, t] : out) {
      if (t.dtype == 8) {
        py::list l2;
        // ONNX strings are bytes: str where they are UTF-8 (what onnx.numpy_helper gives), bytes otherwise.
        for (const auto& s : t.strings) {
          PyObject* u = PyUnicode_DecodeUTF8(s.data(), static_cast<py::ssize_t>(s.size()), nullptr);
          if (u) {
            l2.append(py::reinterpret_steal<py::object>(u));
          } else {
            PyErr_Clear();
            l2.append(py::bytes(s));
          }
        }
        res[py::str(name)] = py::module_::import("numpy").attr("array")(l2, "object").attr("reshape")(t.shape);
        continue;
      }
      py::dtype dt = numpy_dtype(t.dtype);
      std::vector<py::ssize_t> shape(t.shape.begin(), t.shape.end());
      py::array a(dt, shape);
      if (t.nbytes) std::memcpy(a.mutable_data(), t.data, t.nbytes);
      res[py::str(name)] = a;
    }
    return res;
  });
}
