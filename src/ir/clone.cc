#include "ir/clone.h"

namespace onnxtrim::ir {

std::unique_ptr<Model> clone_model(const Model& m) {
  auto out = std::make_unique<Model>();
  out->ir_version = m.ir_version;
  out->opset_import = m.opset_import;
  out->producer_name = m.producer_name;
  out->producer_version = m.producer_version;
  out->domain = m.domain;
  out->model_version = m.model_version;
  out->doc_string = m.doc_string;
  out->metadata_props = m.metadata_props;
  out->extra = m.extra;
  out->presence = m.presence;
  out->path = m.path;
  out->changed_by = m.changed_by;
  out->unchecked_names_and_types = m.unchecked_names_and_types;
  m.graph->clone_into(*out->graph);
  for (const Function& f : m.functions) {
    Function nf;
    nf.name = f.name;
    nf.domain = f.domain;
    nf.overload = f.overload;
    nf.doc_string = f.doc_string;
    nf.attributes = f.attributes;
    for (const Attribute& a : f.attribute_defaults) nf.attribute_defaults.push_back(copy_attribute_shallow(a));
    nf.opset_import = f.opset_import;
    nf.extra = f.extra;
    nf.presence = f.presence;
    nf.body = std::make_unique<Graph>(out.get(), nullptr, nullptr);
    f.body->clone_into(*nf.body);
    out->functions.push_back(std::move(nf));
  }
  return out;
}

}  // namespace onnxtrim::ir

#include "ir/rewriter.h"

namespace onnxtrim::ir {

namespace {

Value* mapped(const Value* v, std::unordered_map<const Value*, Value*>& map) {
  if (!v) return nullptr;
  auto it = map.find(v);
  return it != map.end() ? it->second : const_cast<Value*>(v);  // outer scope: unchanged
}

void copy_node_subgraphs(Model& m, const Node& n, Node* nn, Graph& parent,
                         std::unordered_map<const Value*, Value*>& map);

// Copies a whole nested graph (inputs, initializers, nodes, outputs) as a subgraph of `owner`.
void copy_subgraph(const Graph& src, Graph& out, std::unordered_map<const Value*, Value*>& map) {
  Model& m = *out.model();
  out.name = src.name;
  out.doc_string = src.doc_string;
  out.extra = src.extra;
  out.presence = src.presence;
  auto make = [&](const Value* v) {
    Value* nv = out.create_value(m.unique_name(v->name()));
    nv->type = v->type;
    map[v] = nv;
    return nv;
  };
  for (const Value* v : src.inputs()) out.add_input(make(v));
  for (const Value* v : src.initializers()) {
    Value* nv = map.count(v) ? map[v] : make(v);
    auto t = std::make_shared<Tensor>(*v->initializer());
    t->set_name(nv->name());
    out.set_initializer(nv, t);
  }
  src.for_each_node([&](const Node* n) {
    Node* nn = out.append_node(n->op_type, n->domain);
    nn->name = n->name.empty() ? "" : m.unique_name(n->name);
    nn->doc_string = n->doc_string;
    nn->extra = n->extra;
    nn->presence = n->presence;
    for (const Attribute& a : n->attributes) nn->attributes.push_back(copy_attribute_shallow(a));
    for (const Value* o : n->outputs()) out.add_node_output(nn, o ? make(o) : nullptr);
    copy_node_subgraphs(m, *n, nn, out, map);
    for (const Value* in : n->inputs()) out.add_node_input(nn, mapped(in, map));
  });
  for (const Value* v : src.outputs()) out.add_output(mapped(v, map));
}

// Gives `nn`, the copy of `n` placed in `parent`, copies of n's subgraphs (its attributes were
// copied without them, in the same order).
void copy_node_subgraphs(Model& m, const Node& n, Node* nn, Graph& parent,
                         std::unordered_map<const Value*, Value*>& map) {
  for (size_t ai = 0; ai < n.attributes.size(); ++ai) {
    const Attribute& a = n.attributes[ai];
    if (a.type == AttrType::kGraph && a.g) {
      nn->attributes[ai].g = std::make_shared<Graph>(&m, &parent, nn);
      copy_subgraph(*a.g, *nn->attributes[ai].g, map);
    } else if (a.type == AttrType::kGraphs) {
      for (const auto& g : a.graphs) {
        auto ng = std::make_shared<Graph>(&m, &parent, nn);
        copy_subgraph(*g, *ng, map);
        nn->attributes[ai].graphs.push_back(ng);
      }
    }
  }
}

}  // namespace

std::vector<Value*> inline_graph(const Graph& branch, Graph& dst, Node* before, Rewriter& rw,
                                 std::unordered_map<const Value*, Value*>& map) {
  Model& m = rw.model();
  for (const Value* v : branch.initializers()) {
    if (map.count(v)) continue;
    map[v] = rw.add_initializer(dst, *v->initializer(), v->name());
  }
  branch.for_each_node([&](const Node* n) {
    std::vector<Value*> ins;
    for (const Value* in : n->inputs()) ins.push_back(mapped(in, map));
    Node* nn = rw.insert_node(dst, before, n->op_type, ins, 0, n->name.empty() ? n->op_type : n->name, n->domain);
    if (n->name.empty()) nn->name.clear();
    nn->doc_string = n->doc_string;
    nn->extra = n->extra;
    for (const Attribute& a : n->attributes) nn->attributes.push_back(copy_attribute_shallow(a));
    for (const Value* o : n->outputs()) {
      Value* nv = nullptr;
      if (o) {
        nv = dst.create_value(m.unique_name(o->name()));
        nv->type = o->type;
        map[o] = nv;
      }
      dst.add_node_output(nn, nv);
    }
    copy_node_subgraphs(m, *n, nn, dst, map);
  });
  std::vector<Value*> outs;
  for (const Value* v : branch.outputs()) outs.push_back(mapped(v, map));
  return outs;
}

}  // namespace onnxtrim::ir

namespace onnxtrim::ir {

namespace {

void resolve_attribute_refs(Graph& g, const Function& f, const Node& call) {
  g.for_each_node([&](Node* n) {
    for (size_t i = 0; i < n->attributes.size();) {
      Attribute& a = n->attributes[i];
      if (a.ref_attr_name.empty()) {
        ++i;
        continue;
      }
      const Attribute* src = call.attr(a.ref_attr_name);
      if (src == nullptr)
        for (const Attribute& d : f.attribute_defaults)
          if (d.name == a.ref_attr_name) src = &d;
      if (src == nullptr) {
        n->attributes.erase(n->attributes.begin() + static_cast<std::ptrdiff_t>(i));
        continue;
      }
      Attribute c = copy_attribute_shallow(*src);
      c.g = src->g;
      c.graphs = src->graphs;
      c.name = a.name;
      c.ref_attr_name.clear();
      a = std::move(c);
      ++i;
    }
    for (Graph* sg : n->subgraphs()) resolve_attribute_refs(*sg, f, call);
  });
}

}  // namespace

std::unique_ptr<Model> instantiate_function(const Function& f, const Node& call) {
  auto m = std::make_unique<Model>();
  m->opset_import = f.opset_import;
  f.body->clone_into(*m->graph);
  resolve_attribute_refs(*m->graph, f, call);
  return m;
}

}  // namespace onnxtrim::ir
