// SequenceMap: runs the body graph once per element of the input sequence. Additional inputs
// that are sequences (of the same length) give the body their i-th element; tensors are passed
// whole to every iteration. Each body output is collected into an output sequence.
#include "ops/infer.h"
#include "ops/kernel_util.h"

namespace onnxtrim::ops {
namespace {

const ir::Graph* body_of(const ir::Node& n) {
  const ir::Attribute* a = n.attr("body");
  return a && a->type == ir::AttrType::kGraph ? a->g.get() : nullptr;
}

// ---- evaluate
Status eval_sequence_map(KernelContext& ctx) {
  const ir::Graph* body = body_of(ctx.node());
  if (!body) return ctx.error("SequenceMap needs a graph attribute 'body'");
  if (!ctx.has_input(0) || !ctx.input_value(0)->is_sequence())
    return ctx.error("SequenceMap input 0 must be a sequence");
  size_t len = ctx.input_value(0)->elems.size();
  for (size_t k = 1; k < ctx.num_inputs(); ++k) {
    if (!ctx.has_input(k)) return ctx.error("SequenceMap inputs cannot be empty");
    const RuntimeValue* v = ctx.input_value(k);
    if (v->is_sequence() && v->elems.size() != len)
      return ctx.error("SequenceMap input " + std::to_string(k) + " has " + std::to_string(v->elems.size()) +
                       " elements, input 0 has " + std::to_string(len));
  }
  if (body->inputs().size() != ctx.num_inputs())
    return ctx.error("SequenceMap body takes " + std::to_string(body->inputs().size()) + " inputs, the node gives " +
                     std::to_string(ctx.num_inputs()));
  std::vector<std::vector<RuntimeValue>> outs(ctx.num_outputs());
  for (size_t i = 0; i < len; ++i) {
    std::vector<RuntimeValue> in;
    for (size_t k = 0; k < ctx.num_inputs(); ++k) {
      const RuntimeValue* v = ctx.input_value(k);
      in.push_back(v->is_sequence() ? v->elems[i] : *v);
    }
    auto r = ctx.run_subgraph(*body, std::move(in));
    if (!r) return r.status();
    if (r.value().size() < ctx.num_outputs()) return ctx.error("SequenceMap body has fewer outputs than the node");
    for (size_t o = 0; o < ctx.num_outputs(); ++o) outs[o].push_back(std::move(r.value()[o]));
  }
  for (size_t o = 0; o < ctx.num_outputs(); ++o) {
    ir::Type elem;
    if (o < body->outputs().size() && body->outputs()[o]) elem = body->outputs()[o]->type;
    ctx.set_output_value(o, RuntimeValue::sequence(std::move(outs[o]), elem));
  }
  return Status::ok();
}

// ---- shape inference
Status infer_sequence_map(InferContext& ctx) {
  const ir::Graph* body = body_of(ctx.node());
  if (!body) return Status::ok();
  std::vector<TypeInfo> in;
  for (size_t k = 0; k < ctx.num_inputs(); ++k) {
    const TypeInfo& t = ctx.input(k);
    if (t.kind == ir::Type::Kind::kSequence) in.push_back(t.inner ? *t.inner : TypeInfo{});
    else in.push_back(t);
  }
  auto r = ctx.infer_subgraph(*body, std::move(in));
  if (!r) return Status::ok();
  for (size_t o = 0; o < ctx.num_outputs() && o < r.value().size(); ++o) {
    TypeInfo seq;
    seq.kind = ir::Type::Kind::kSequence;
    seq.inner = std::make_shared<TypeInfo>(r.value()[o]);
    seq.inner->values.reset();
    ctx.output(o) = std::move(seq);
  }
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(SequenceMap, "", "SequenceMap", (std::vector<int>{17}), eval_sequence_map);
ONNXTRIM_REGISTER_INFER(SequenceMap, "", "SequenceMap", infer_sequence_map);

}  // namespace onnxtrim::ops
