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
  m.graph->clone_into(*out->graph);
  for (const Function& f : m.functions) {
    Function nf;
    nf.name = f.name;
    nf.domain = f.domain;
    nf.overload = f.overload;
    nf.doc_string = f.doc_string;
    nf.attributes = f.attributes;
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
