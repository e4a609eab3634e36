#include "ops/custom_ops.h"

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "onnx_io/onnx_io.h"

namespace onnxtrim::ops {

namespace {

thread_local const CustomOpRules* custom_ops_current = nullptr;

std::string_view custom_ops_norm(std::string_view d) { return d == "ai.onnx" ? std::string_view() : d; }

// "same_as_input:N" / "input:N:dim:A" pieces: an integer, or nullopt.
std::optional<int64_t> custom_ops_int(std::string_view s) {
  if (s.empty()) return std::nullopt;
  size_t i = 0;
  bool neg = false;
  if (s[0] == '-') {
    neg = true;
    i = 1;
  }
  if (i == s.size()) return std::nullopt;
  int64_t v = 0;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9' || v > 100000000) return std::nullopt;
    v = v * 10 + (s[i] - '0');
  }
  return neg ? -v : v;
}

std::optional<int> custom_ops_input_ref(std::string_view s, std::string_view prefix) {
  if (s.substr(0, prefix.size()) != prefix) return std::nullopt;
  auto v = custom_ops_int(s.substr(prefix.size()));
  if (!v || *v < 0) return std::nullopt;
  return static_cast<int>(*v);
}

struct CustomOpsBad {
  std::string why;
};

CustomOutputRule custom_ops_output(const nlohmann::json& j) {
  CustomOutputRule r;
  if (!j.is_object()) throw CustomOpsBad{"an output must be an object with \"type\" and \"shape\""};
  for (const auto& [k, v] : j.items())
    if (k != "type" && k != "shape") throw CustomOpsBad{"unknown key \"" + k + "\" in an output (type, shape)"};
  if (!j.contains("type") || !j["type"].is_string())
    throw CustomOpsBad{"an output needs \"type\": an element type name or \"same_as_input:N\""};
  const std::string type = j["type"].get<std::string>();
  if (auto in = custom_ops_input_ref(type, "same_as_input:")) {
    r.type_input = *in;
  } else if (auto t = ir::dtype_from_name(type); t && *t != ir::DataType::kUndefined) {
    r.type = *t;
  } else {
    throw CustomOpsBad{"unknown \"type\" '" + type + "' (an element type such as float or int64, or same_as_input:N)"};
  }
  if (!j.contains("shape")) return r;  // shape unknown: rank and dims left to the consumers
  const nlohmann::json& s = j["shape"];
  if (s.is_string()) {
    const std::string text = s.get<std::string>();
    if (auto in = custom_ops_input_ref(text, "same_as_input:")) {
      r.shape = CustomOutputRule::Shape::kSameAsInput;
      r.shape_input = *in;
    } else if (text == "broadcast") {
      r.shape = CustomOutputRule::Shape::kBroadcast;
    } else {
      throw CustomOpsBad{"unknown \"shape\" '" + text + "' (same_as_input:N, broadcast, or a list of dims)"};
    }
    return r;
  }
  if (!s.is_array()) throw CustomOpsBad{"\"shape\" must be a string or a list of dims"};
  r.shape = CustomOutputRule::Shape::kDims;
  for (const auto& d : s) {
    CustomOutputRule::Dim dim;
    if (d.is_number_integer() && d.get<int64_t>() >= 0) {
      dim.value = d.get<int64_t>();
    } else if (d.is_string()) {
      const std::string t = d.get<std::string>();
      // "input:N:dim:A"
      size_t c1 = t.find(':'), c2 = c1 == std::string::npos ? c1 : t.find(':', c1 + 1),
             c3 = c2 == std::string::npos ? c2 : t.find(':', c2 + 1);
      if (t.rfind("input:", 0) == 0 && c3 != std::string::npos && t.substr(c2, c3 - c2 + 1) == ":dim:") {
        auto in = custom_ops_int(std::string_view(t).substr(c1 + 1, c2 - c1 - 1));
        auto ax = custom_ops_int(std::string_view(t).substr(c3 + 1));
        if (!in || *in < 0 || !ax) throw CustomOpsBad{"bad dim '" + t + "' (input:N:dim:A, N >= 0)"};
        dim.input = static_cast<int>(*in);
        dim.axis = *ax;
      } else if (!t.empty() && t.find(':') == std::string::npos) {
        dim.symbol = t;
      } else {
        throw CustomOpsBad{"bad dim '" + t + "' (an integer >= 0, input:N:dim:A, or a dim name)"};
      }
    } else {
      throw CustomOpsBad{"bad dim " + d.dump() + " (an integer >= 0, input:N:dim:A, or a dim name)"};
    }
    r.dims.push_back(std::move(dim));
  }
  return r;
}

}  // namespace

Result<CustomOpRules> parse_custom_op_schemas(std::string_view text, const std::string& source) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::exception& e) {
    return Status(ErrorCode::kUsage, "not a custom-op schema file: " + std::string(e.what())).with_file(source);
  }
  if (!doc.is_array())
    return Status(ErrorCode::kUsage, "a custom-op schema file is a JSON list of ops").with_file(source);
  CustomOpRules out;
  for (size_t i = 0; i < doc.size(); ++i) {
    const nlohmann::json& e = doc[i];
    std::string where = "entry " + std::to_string(i);
    try {
      if (!e.is_object()) throw CustomOpsBad{"must be an object"};
      if (e.contains("op") && e["op"].is_string())
        where += " (" + e.value("domain", std::string()) + "::" + e["op"].get<std::string>() + ")";
      for (const auto& [k, v] : e.items())
        if (k != "domain" && k != "op" && k != "since_version" && k != "outputs")
          throw CustomOpsBad{"unknown key \"" + k + "\" (domain, op, since_version, outputs)"};
      if (!e.contains("domain") || !e["domain"].is_string()) throw CustomOpsBad{"needs \"domain\" (a string)"};
      if (!e.contains("op") || !e["op"].is_string() || e["op"].get<std::string>().empty())
        throw CustomOpsBad{"needs \"op\" (the op type)"};
      CustomOpRule r;
      r.domain = std::string(custom_ops_norm(e["domain"].get<std::string>()));
      r.op_type = e["op"].get<std::string>();
      if (r.domain.empty() || r.domain == "ai.onnx.ml")
        throw CustomOpsBad{"domain '" + e["domain"].get<std::string>() +
                           "' is ONNX's own: custom ops need a domain of their own"};
      if (e.contains("since_version")) {
        if (!e["since_version"].is_number_integer() || e["since_version"].get<int64_t>() < 1)
          throw CustomOpsBad{"\"since_version\" must be an integer >= 1"};
        r.since_version = e["since_version"].get<int64_t>();
      }
      if (!e.contains("outputs") || !e["outputs"].is_array() || e["outputs"].empty())
        throw CustomOpsBad{"needs \"outputs\": a list of {type, shape}, one per output"};
      for (const auto& o : e["outputs"]) r.outputs.push_back(custom_ops_output(o));
      for (const auto& prev : out)
        if (prev.domain == r.domain && prev.op_type == r.op_type)
          throw CustomOpsBad{"describes " + r.domain + "::" + r.op_type + " again (" + prev.source + ")"};
      r.source = source + " " + where;
      out.push_back(std::move(r));
    } catch (const CustomOpsBad& b) {
      return Status(ErrorCode::kUsage, where + ": " + b.why).with_file(source);
    }
  }
  return out;
}

Result<CustomOpRules> function_custom_ops(std::shared_ptr<const ir::Model> functions, const std::string& source) {
  CustomOpRules out;
  if (functions->functions.empty())
    return Status(ErrorCode::kUsage,
                  "holds no function: a custom op given as an ONNX function is a function named "
                  "as the op, in the op's domain")
        .with_file(source);
  for (const ir::Function& f : functions->functions) {
    const std::string where = "function " + f.domain + "::" + f.name;
    const std::string domain(custom_ops_norm(f.domain));
    if (domain.empty() || domain == "ai.onnx.ml")
      return Status(ErrorCode::kUsage,
                    where + ": domain '" + f.domain + "' is ONNX's own: custom ops need a domain of their own")
          .with_file(source);
    if (!f.body || f.body->outputs().empty())
      return Status(ErrorCode::kUsage, where + ": has no body with outputs").with_file(source);
    for (const CustomOpRule& prev : out)
      if (prev.domain == domain && prev.op_type == f.name)
        return Status(ErrorCode::kUsage, where + ": given twice").with_file(source);
    CustomOpRule r;
    r.domain = domain;
    r.op_type = f.name;
    r.source = source + " " + where;
    r.functions = functions;
    r.function = &f;
    out.push_back(std::move(r));
  }
  return out;
}

Result<CustomOpRules> load_custom_op_schemas(const std::string& path) {
  if (path.size() >= 5 && path.compare(path.size() - 5, 5, ".onnx") == 0) {
    auto m = onnx_io::load_model(path);
    if (!m.is_ok()) return Status(m.status()).with_file(path);
    return function_custom_ops(std::shared_ptr<const ir::Model>(std::move(m).value()), path);
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status(ErrorCode::kIo, "cannot read the custom-op schemas").with_file(path);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos || text[first] == '[') return parse_custom_op_schemas(text, path);
  // ONNX text: functions only.
  auto m = onnx_io::parse_text_functions(text, path);
  if (!m.is_ok()) return Status(m.status()).with_file(path);
  return function_custom_ops(std::shared_ptr<const ir::Model>(std::move(m).value()), path);
}

CustomOpScope::CustomOpScope(const CustomOpRules* rules) : previous_(custom_ops_current) { custom_ops_current = rules; }
CustomOpScope::~CustomOpScope() { custom_ops_current = previous_; }

const CustomOpRules* current_custom_ops() { return custom_ops_current; }

const CustomOpRule* find_custom_op(std::string_view domain, std::string_view op_type, int64_t opset) {
  return find_custom_op_in(custom_ops_current, domain, op_type, opset);
}

const CustomOpRule* find_custom_op_in(const CustomOpRules* rules, std::string_view domain, std::string_view op_type,
                                      int64_t opset) {
  if (!rules) return nullptr;
  domain = custom_ops_norm(domain);
  for (const CustomOpRule& r : *rules)
    if (r.domain == domain && r.op_type == op_type) return opset > 0 && r.since_version > opset ? nullptr : &r;
  return nullptr;
}

Status infer_custom_op(InferContext& ctx, const CustomOpRule& rule) {
  auto need = [&](int i) -> Status {
    if (i < 0 || static_cast<size_t>(i) >= ctx.num_inputs() || !ctx.has_input(static_cast<size_t>(i)))
      return ctx.error("the custom-op schema (" + rule.source + ") refers to input " + std::to_string(i) +
                       ", which the node does not have");
    return Status::ok();
  };
  for (size_t o = 0; o < rule.outputs.size() && o < ctx.num_outputs(); ++o) {
    if (!ctx.has_output(o)) continue;
    const CustomOutputRule& r = rule.outputs[o];
    TypeInfo out;
    out.kind = ir::Type::Kind::kTensor;
    if (r.type_input >= 0) {
      OT_RETURN_IF_ERROR(need(r.type_input));
      out.elem = ctx.input(r.type_input).is_tensor() ? ctx.input(r.type_input).elem : ir::DataType::kUndefined;
    } else {
      out.elem = r.type;
    }
    switch (r.shape) {
      case CustomOutputRule::Shape::kUnknown: break;
      case CustomOutputRule::Shape::kSameAsInput:
        OT_RETURN_IF_ERROR(need(r.shape_input));
        out.shape = ctx.input(r.shape_input).shape;
        break;
      case CustomOutputRule::Shape::kBroadcast: {
        std::vector<const SymShape*> shapes;
        bool all = true;
        for (size_t i = 0; i < ctx.num_inputs(); ++i) {
          if (!ctx.has_input(i)) continue;
          if (!ctx.input(i).shape) all = false;
          else shapes.push_back(&*ctx.input(i).shape);
        }
        if (!all || shapes.empty()) break;
        bool error = false;
        out.shape = broadcast(shapes, &error);
        if (error) return ctx.error("the inputs' shapes do not broadcast (custom-op schema " + rule.source + ")");
        break;
      }
      case CustomOutputRule::Shape::kDims: {
        SymShape s;
        for (const auto& d : r.dims) {
          if (d.value >= 0) {
            s.push_back(dim(d.value));
          } else if (!d.symbol.empty()) {
            s.push_back(Expr::symbol(d.symbol));
          } else {
            OT_RETURN_IF_ERROR(need(d.input));
            const TypeInfo& in = ctx.input(d.input);
            if (!in.shape) {
              s.push_back(ctx.fresh());
              continue;
            }
            int64_t rank = static_cast<int64_t>(in.shape->size());
            int64_t a = d.axis < 0 ? d.axis + rank : d.axis;
            if (a < 0 || a >= rank)
              return ctx.error("the custom-op schema (" + rule.source + ") reads dim " + std::to_string(d.axis) +
                               " of input " + std::to_string(d.input) + ", which has rank " + std::to_string(rank));
            s.push_back((*in.shape)[a]);
          }
        }
        out.shape = std::move(s);
        break;
      }
    }
    ctx.output(o) = std::move(out);
  }
  return Status::ok();
}

}  // namespace onnxtrim::ops
