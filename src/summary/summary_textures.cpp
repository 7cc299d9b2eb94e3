// `meshport info`: where each material's textures were found (Summary::textures; textures.h).
#include "summary/summary_parts.h"

namespace meshport::summary_parts {

namespace {

std::string material_of(const Summary& s, int32_t m) {
  return m >= 0 && size_t(m) < s.materials.size() ? s.materials[size_t(m)] : std::string();
}

}  // namespace

nlohmann::json textures_json(const Summary& s) {
  nlohmann::json list = nlohmann::json::array();
  for (const TextureLookup& t : *s.textures) {
    nlohmann::json j{{"material", material_of(s, t.material)}, {"slot", t.slot},
                     {"reference", t.reference},           {"source", t.source},
                     {"found", t.found()}};
    if (t.image >= 0) j["image"] = t.image;
    if (!t.file.empty()) j["file"] = t.relative;
    if (!t.rule.empty()) j["rule"] = t.rule;
    if (!t.reason.empty()) j["reason"] = t.reason;
    if (!t.note.empty()) j["note"] = t.note;
    list.push_back(std::move(j));
  }
  return list;
}

// "  textures:" then per material one line per slot:
//     "NAME" SLOT "REFERENCE": RULE: PATH            (PATH relative to the model's folder)
//     "NAME" SLOT "REFERENCE" (from SOURCE): embedded
//     "NAME" SLOT "REFERENCE": not found: REASON
//     "NAME": no textures
// and a note on its own line under the slot it concerns.
void textures_text(const Summary& s, std::string& out) {
  const std::vector<TextureLookup>& all = *s.textures;
  if (s.materials.empty()) return;
  put(out, "  textures:\n");
  for (size_t m = 0; m < s.materials.size(); ++m) {
    bool any = false;
    for (const TextureLookup& t : all) {
      if (t.material != int32_t(m)) continue;
      any = true;
      std::string from = t.source == "material" ? std::string() : fmt::format(" (from {})", t.source);
      put(out, "    \"{}\" {} \"{}\"{}: ", s.materials[m], t.slot, t.reference, from);
      if (t.image >= 0)
        put(out, "embedded (image {})\n", t.image);
      else if (t.found())
        put(out, "{}: {}\n", t.rule, t.relative);
      else
        put(out, "not found: {}\n", t.reason);
      if (!t.note.empty()) put(out, "      note: {}\n", t.note);
    }
    if (!any) put(out, "    \"{}\": no textures\n", s.materials[m]);
  }
}

}  // namespace meshport::summary_parts
