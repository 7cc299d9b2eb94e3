// The format table's capabilities (formats.h) against the writers, fit_to_format, `formats --json`
// and docs/formats.md: a value the code does not honour fails here.
#include <meshport/formats.h>
#include <meshport/meshport.h>
#include <meshport/summary.h>

#include "image/image.h"
#include "test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

namespace meshport_test_capabilities {

using namespace meshport;
namespace fs = std::filesystem;

namespace {

// A triangle with positions, normals and texture coordinates skinned to one joint, and its
// material, whose colour map is a PNG of Scene::images.
Scene triangle() {
  Scene s;
  Mesh m;
  m.name = "tri";
  m.material = 0;
  m.streams.push_back(testutil::float_stream(Attribute::Position, 3, {0, 0, 0, 1, 0, 0, 0, 1, 0}));
  m.streams.push_back(testutil::float_stream(Attribute::Normal, 3, {0, 0, 1, 0, 0, 1, 0, 0, 1}));
  m.streams.push_back(testutil::float_stream(Attribute::Texcoord, 2, {0, 0, 1, 0, 0, 1}));
  m.streams.push_back(testutil::float_stream(Attribute::BlendIndices, 1, {0, 0, 0}));
  m.streams.push_back(testutil::float_stream(Attribute::BlendWeights, 1, {1, 1, 1}));
  m.triangles = {0, 1, 2};
  s.meshes.push_back(m);
  s.materials.push_back(testutil::material("skin", "skin.png"));
  Image png;
  png.path = "skin.png", png.mime_type = "image/png";
  png.data = image::encode_png({2, 2, std::vector<uint8_t>(16, 200)});
  s.images.push_back(png);
  Joint j;
  j.name = "root";
  s.joints.push_back(j);
  return s;
}

// An animation of the joint: `frames` frames moving along x.
Animation walk(size_t frames) {
  Animation a;
  a.name = "walk";
  a.framerate = 10;
  a.channels = 1;
  for (size_t f = 0; f < frames; ++f) {
    Transform t;
    t.translation = {float(f), 0, 0};
    a.poses.push_back(t);
  }
  return a;
}

bool has_warning(const Diagnostics& d, const std::string& part) {
  for (const Diagnostic& i : d.items)
    if (i.message.find(part) != std::string::npos) return true;
  return false;
}

std::string messages(const Diagnostics& d) {
  std::string out;
  for (const Diagnostic& i : d.items) out += i.message + "\n";
  return out;
}

// A Scene written to `format` in a fresh folder and read back.
struct Written {
  Diagnostics diags;
  Scene back;
  std::vector<std::string> files;  // the names of the files written beside the model (not its own)
};

Written write_and_read(const Scene& s, Format format, const WriteOptions& given = {}) {
  const fs::path dir = fs::temp_directory_path() / ("meshport_caps_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string path = (dir / ("probe" + std::string(format_info(format).extensions.front()))).string();
  WriteOptions o = given;
  o.format = format;
  Written w;
  try {
    write(s, path, o, &w.diags);
    w.back = read(path, {}, &w.diags);
  } catch (...) {
    fs::remove_all(dir);
    throw;
  }
  const std::string stem = fs::path(path).stem().stem().string();  // "probe" of probe.qmsh.tmp
  for (const auto& e : fs::directory_iterator(dir))
    if (fs::path(e.path()).stem().stem().string() != stem) w.files.push_back(e.path().filename().string());
  std::sort(w.files.begin(), w.files.end());
  fs::remove_all(dir);
  return w;
}

// One capability's probe: a Scene that uses it, and whether what was read back kept it.
struct Probe {
  std::string capability;
  std::function<Scene()> scene;
  std::function<bool(const Scene& back)> kept;
  std::string warning;  // part of the warning printed when it is not kept
  // An animation's property: a format without skeletal animation drops the animation whole.
  bool of_animation = false;
  // Instead of `kept`, for what shows in the files written beside the model too (textures).
  std::function<bool(const Written&)> kept_written = nullptr;
};

// Whether `back` passes through every key of `keys` (time, x): a frame at the key's time with its
// translation.
bool passes_keys(const Scene& back, const std::vector<std::pair<float, float>>& keys) {
  if (back.animations.empty()) return false;
  const Animation& a = back.animations[0];
  for (const auto& [t, x] : keys) {
    bool found = false;
    for (size_t f = 0; f < a.frame_count(); ++f) {
      const double time = a.times.empty() ? double(f) / (a.framerate > 0 ? a.framerate : 30) : a.times[f];
      found = found || (std::abs(time - t) < 1e-4 && std::abs(a.poses[f * a.channels].translation[0] - x) < 1e-4);
    }
    if (!found) return false;
  }
  return true;
}

// `morph`: the mesh has a morph target (moving its first vertex).
Scene animated(std::function<void(Animation&)> edit, bool morph = false) {
  Scene s = triangle();
  if (morph) {
    MorphTarget t;
    t.name = "smile";
    t.positions = {0, 0, 1, 0, 0, 0, 0, 0, 0};
    s.meshes[0].morph_targets.push_back(t);
  }
  Animation a = walk(3);
  edit(a);
  s.animations.push_back(a);
  return s;
}

// An animated triangle (a ModeDef .path writes nothing else) edited.
Scene with_mesh(std::function<void(Scene&)> edit) {
  Scene s = triangle();
  s.animations.push_back(walk(2));
  edit(s);
  return s;
}


// The stream of mesh 0 of `b` with attribute `a` (and name, for custom arrays).
const VertexStream* stream_of(const Scene& b, Attribute a, const std::string& name = {}) {
  if (b.meshes.empty()) return nullptr;
  for (const VertexStream& s : b.meshes[0].streams)
    if (s.attribute == a && s.name == name) return &s;
  return nullptr;
}

// Whether mesh 0 of `b` holds `want` (per vertex of triangle(), in its order) in the first
// `components` values of `s`, whatever order the format put the vertices in (PIE's): compared as
// the sorted (position, values) of each vertex.
bool holds_values(const Scene& b, const VertexStream* s, uint32_t components, const std::vector<float>& want) {
  const VertexStream* pos = b.meshes.empty() ? nullptr : b.meshes[0].find(Attribute::Position);
  if (!s || !pos || s->components < components || s->vertex_count() * components != want.size() ||
      pos->vertex_count() != s->vertex_count())
    return false;
  const std::vector<float> written = {0, 0, 0, 1, 0, 0, 0, 1, 0};  // triangle()'s positions
  std::vector<std::vector<float>> read_rows, want_rows;
  for (size_t v = 0; v < s->vertex_count(); ++v) {
    std::vector<float> r = {pos->get(v, 0) + 0.0f, pos->get(v, 1) + 0.0f, pos->get(v, 2) + 0.0f};  // -0 is 0
    std::vector<float> w(written.begin() + ptrdiff_t(v * 3), written.begin() + ptrdiff_t(v * 3 + 3));
    for (uint32_t c = 0; c < components; ++c) r.push_back(s->get(v, c)), w.push_back(want[v * components + c]);
    read_rows.push_back(r), want_rows.push_back(w);
  }
  std::sort(read_rows.begin(), read_rows.end());
  std::sort(want_rows.begin(), want_rows.end());
  return read_rows == want_rows;
}

VertexStream named(Attribute a, const std::string& name, uint32_t components, std::vector<float> data) {
  VertexStream s = testutil::float_stream(a, components, std::move(data));
  s.name = name;
  return s;
}

// The triangle's material with a PNG of Scene::images in each texture slot PIE writes, and a
// material no mesh uses with its own.
Scene textured() {
  return with_mesh([](Scene& s) {
    const auto image = [&](const std::string& name) {
      Image png;
      png.path = name, png.mime_type = "image/png";
      png.data = image::encode_png({2, 2, std::vector<uint8_t>(16, 100)});
      s.images.push_back(png);
      return name;
    };
    s.materials[0].normal_texture = image("skinnormal.png");
    s.materials[0].specular_texture = image("skinspecular.png");
    s.materials[0].team_colour_texture = image("skinteam.png");
    s.materials.push_back(testutil::material("unused", image("other.png")));
  });
}

bool written(const Written& w, const std::string& name) {
  return !name.empty() && std::find(w.files.begin(), w.files.end(), name) != w.files.end();
}

// Whether a material read back names, in `slot`, a file written beside the model.
bool names_written(const Written& w, std::string Material::*slot) {
  for (const Material& m : w.back.materials)
    if (written(w, m.*slot)) return true;
  return false;
}

// Whether a material read back has no colour map but the name of a texture file written beside.
bool named_by_material(const Written& w) {
  for (const Material& m : w.back.materials)
    for (const std::string& f : w.files)
      if (m.base_color_texture.empty() && fs::path(f).stem().string() == m.name) return true;
  return false;
}

const Animation* first_animation(const Scene& s) { return s.animations.empty() ? nullptr : &s.animations[0]; }

std::vector<Probe> probes() {
  return {
      {"skeletal_animation", [] { return animated([](Animation&) {}); },
       [](const Scene& b) { return passes_keys(b, {{0, 0}, {0.1f, 1}, {0.2f, 2}}); }, "no skeletal animation"},
      // Keys on no 10 fps frame but on whole frames at 30 fps (what ModeDef's .path reader samples).
      {"uneven_keys", [] { return animated([](Animation& a) { a.times = {0, 0.1f, 1 / 6.0f}; }); },
       [](const Scene& b) { return passes_keys(b, {{0, 0}, {0.1f, 1}, {1 / 6.0f, 2}}); }, "unevenly spaced", true},
      {"step_interpolation", [] { return animated([](Animation& a) { a.interpolation = Interpolation::Step; }); },
       [](const Scene& b) { return first_animation(b) && first_animation(b)->interpolation == Interpolation::Step; },
       "step interpolation", true},
      {"morph_animation",
       [] {
         return animated([](Animation& a) {
           MorphWeightTrack t;
           t.mesh = 0, t.times = {0, 0.1f}, t.weights = {0, 1};
           a.morph_weights.push_back(t);
         }, true);
       },
       [](const Scene& b) { return first_animation(b) && !first_animation(b)->morph_weights.empty(); },
       "morph weight", true},
      {"texture_transforms",
       [] { return with_mesh([](Scene& s) { s.materials[0].base_color_transform.offset = {0.5f, 0}; }); },
       [](const Scene& b) { return !b.materials.empty() && !b.materials[0].base_color_transform.is_identity(); },
       ""},
      {"gpu_instances",
       [] {
         return with_mesh([](Scene& s) {
           Transform a, b;
           b.translation = {5, 0, 0};
           s.meshes[0].instances = {a, b};
           s.meshes[0].streams.resize(3);  // not skinned: glTF instances only meshes without a skin
         });
       },
       [](const Scene& b) { return !b.meshes.empty() && b.meshes[0].instances.size() == 2; }, "instances"},
      {"lines_and_points",
       [] {
         return with_mesh([](Scene& s) {
           Mesh l = s.meshes[0];
           l.name = "edges";
           l.topology = Topology::Lines;
           l.triangles = {0, 1, 1, 2};
           s.meshes.push_back(l);
         });
       },
       [](const Scene& b) {
         for (const Mesh& m : b.meshes)
           if (m.topology == Topology::Lines) return true;
         return false;
       },
       "lines"},
      {"lods",
       [] {
         return with_mesh([](Scene& s) {
           Mesh l = s.meshes[0];
           l.name = "tri_lod1";
           l.lod = 1, l.lod_of = 0;
           s.meshes.push_back(l);
         });
       },
       [](const Scene& b) {
         for (const Mesh& m : b.meshes)
           if (m.lod == 1) return true;
         return false;
       },
       "level"},
      {"gltf_material_data",
       [] { return with_mesh([](Scene& s) { s.materials[0].occlusion_texture.texture = "ao.png"; }); },
       [](const Scene& b) { return !b.materials.empty() && b.materials[0].occlusion_texture.texture == "ao.png"; },
       "occlusion texture"},
      {"emissive_texture",
       [] { return with_mesh([](Scene& s) { s.materials[0].emissive_texture.texture = "glow.png"; }); },
       [](const Scene& b) {
         for (const Material& m : b.materials)
           if (m.emissive_texture.texture == "glow.png") return true;
         return false;
       },
       "emissive texture"},
      {"vertex_colours",
       [] {
         return with_mesh(
             [](Scene& s) { s.meshes[0].streams.push_back(testutil::float_stream(Attribute::Color, 3, {1, 0, 0, 0, 1, 0, 0, 0, 1})); });
       },
       [](const Scene& b) { return holds_values(b, stream_of(b, Attribute::Color), 3, {1, 0, 0, 0, 1, 0, 0, 0, 1}); },
       "no vertex colours"},
      {"vertex_colour_alpha",
       [] {
         return with_mesh([](Scene& s) {
           s.meshes[0].streams.push_back(testutil::float_stream(Attribute::Color, 4, {1, 0, 0, 0, 0, 1, 0, 1, 0, 0, 1, 0}));
         });
       },
       [](const Scene& b) {
         return holds_values(b, stream_of(b, Attribute::Color), 4, {1, 0, 0, 0, 0, 1, 0, 1, 0, 0, 1, 0});
       },
       "colours have no alpha"},
      {"morph_targets", [] { return animated([](Animation&) {}, true); },
       [](const Scene& b) { return !b.meshes.empty() && b.meshes[0].morph_targets.size() == 1; }, "no morph targets"},
      {"custom_vertex_arrays",
       [] {
         return with_mesh([](Scene& s) {
           s.meshes[0].streams.push_back(named(Attribute::Custom, "heat", 1, {0.125f, 0.25f, 0.5f}));
         });
       },
       [](const Scene& b) { return holds_values(b, stream_of(b, Attribute::Custom, "heat"), 1, {0.125f, 0.25f, 0.5f}); },
       "1 custom vertex arrays are not written"},
      // Texture files: what is written beside the model and what the model read back names.
      {"texture_files", textured, nullptr, "", false,
       [](const Written& w) { return names_written(w, &Material::base_color_texture) || named_by_material(w); }},
      {"normal_texture", textured, nullptr, "", false,
       [](const Written& w) { return names_written(w, &Material::normal_texture); }},
      {"specular_texture", textured, nullptr, "", false,
       [](const Written& w) { return names_written(w, &Material::specular_texture); }},
      {"team_colour_texture", textured, nullptr, "", false,
       [](const Written& w) { return names_written(w, &Material::team_colour_texture); }},
      {"textures_by_material_name", textured, nullptr, "", false, named_by_material},
      {"every_material", textured, nullptr, "", false, [](const Written& w) { return written(w, "other.png"); }},
      {"pie_pages", textured, nullptr, "", false,
       [](const Written& w) {
         for (const Material& m : w.back.materials)
           if (written(w, m.base_color_texture) && m.base_color_texture.starts_with("page-")) return true;
         return false;
       }},
  };
}

bool capability(const FormatInfo& f, const std::string& name) {
  for (const Capability& c : capability_list(f.holds))
    if (c.name == name) return c.value;
  ADD_FAILURE() << "no capability " << name;
  return false;
}

// The formats a Scene of meshes can be written to and read back from (a .state is written only
// from a Scene read from one: fit_to_format is checked for it below).
std::vector<const FormatInfo*> round_trip_formats() {
  std::vector<const FormatInfo*> out;
  for (const FormatInfo& f : formats())
    if (f.can_write && f.can_read && f.format != Format::ModeDefState) out.push_back(&f);
  return out;
}

}  // namespace

// For every writable format and every probed capability: kept iff the table says so, and a
// warning naming it when not kept (texture transforms are baked into the coordinates instead).
TEST(Capabilities, WritersHonourTheTable) {
  for (const FormatInfo* f : round_trip_formats())
    for (const Probe& p : probes()) {
      // The .gltf writer puts the images beside it itself (or embeds them), not by the texture
      // rows' rules, which are for formats that only name texture files (image_rules()).
      if (p.kept_written && f->format == Format::Gltf) continue;
      SCOPED_TRACE(std::string(f->name) + " " + p.capability);
      Written w;
      try {
        w = write_and_read(p.scene(), f->format);
      } catch (const Error& e) {
        ADD_FAILURE() << e.what();
        continue;
      }
      const bool holds = capability(*f, p.capability);
      EXPECT_EQ(p.kept_written ? p.kept_written(w) : p.kept(w.back), holds) << messages(w.diags);
      if (!holds && !p.warning.empty()) {
        const bool whole = p.of_animation && !f->holds.skeletal_animation;
        const bool no_colours = p.capability == "vertex_colour_alpha" && !f->holds.vertex_colours;
        EXPECT_TRUE(has_warning(w.diags, whole        ? "no skeletal animation"
                                         : no_colours ? "no vertex colours"
                                                      : p.warning))
            << messages(w.diags);
      }
    }
}

namespace {

uint32_t count_capability(const FormatInfo& f, const std::string& name) {
  for (const Capability& c : capability_list(f.holds))
    if (c.name == name && c.is_count) return c.count;
  ADD_FAILURE() << "no count capability " << name;
  return 0;
}

// The texture coordinate sets of mesh 0 read back with the values written: set 0 (0 1 0 1 ...),
// then "texcoord<n>" holding n / 8 added; counted up to the first missing.
uint32_t uv_sets_kept(const Scene& b) {
  const VertexStream* set0 = stream_of(b, Attribute::Texcoord);
  if (!holds_values(b, set0, 2, {0, 0, 1, 0, 0, 1})) return 0;
  uint32_t n = 1;
  while (holds_values(b, stream_of(b, Attribute::Custom, "texcoord" + std::to_string(n)), 2,
                      {n / 8.0f, n / 8.0f, 1 + n / 8.0f, n / 8.0f, n / 8.0f, 1 + n / 8.0f}))
    ++n;
  return n;
}

Scene with_uv_sets(uint32_t sets) {
  return with_mesh([&](Scene& s) {
    for (uint32_t n = 1; n < sets; ++n) {
      const float o = n / 8.0f;
      s.meshes[0].streams.push_back(named(Attribute::Custom, "texcoord" + std::to_string(n), 2,
                                          {o, o, 1 + o, o, o, 1 + o}));
    }
  });
}

// Six influences on joints 0..5 (the largest first) of every vertex; the animation moves joint 0.
constexpr float kWeights[6] = {0.3f, 0.25f, 0.2f, 0.12f, 0.08f, 0.05f};
Scene with_six_influences() {
  Scene s = triangle();
  std::vector<float> idx, wgt;
  for (int v = 0; v < 3; ++v)
    for (int j = 0; j < 6; ++j) idx.push_back(float(j)), wgt.push_back(kWeights[j]);
  s.meshes[0].streams[3] = testutil::float_stream(Attribute::BlendIndices, 6, idx);
  s.meshes[0].streams[4] = testutil::float_stream(Attribute::BlendWeights, 6, wgt);
  for (int j = 1; j < 6; ++j) {
    Joint joint;
    joint.name = "j" + std::to_string(j);
    joint.parent = 0;
    s.joints.push_back(joint);
  }
  Animation a = walk(2);
  a.channels = 6;
  a.poses.clear();
  for (int f = 0; f < 2; ++f)
    for (int j = 0; j < 6; ++j) {
      Transform t;
      if (j == 0) t.translation = {float(f), 0, 0};
      a.poses.push_back(t);
    }
  s.animations.push_back(a);
  return s;
}

// The influences per vertex read back: each vertex's joints with a weight are the largest
// written (0, 1, ...), in number the least over the vertices; where the count is what was written
// (6), the weights too. A mesh without blend streams that the animation still moves (PIE: a level
// follows its one joint) has 1; none moved, 0.
uint32_t influences_kept(const Scene& b) {
  const VertexStream* bi = stream_of(b, Attribute::BlendIndices);
  const VertexStream* bw = stream_of(b, Attribute::BlendWeights);
  if (!bi || !bw) return !b.meshes.empty() && passes_keys(b, {{0, 0}, {0.1f, 1}}) ? 1 : 0;
  uint32_t least = 64;
  for (size_t v = 0; v < bw->vertex_count(); ++v) {
    uint32_t n = 0;
    for (uint32_t c = 0; c < bw->components; ++c)
      if (bw->get(v, c) > 0) {
        if (bi->get(v, c) != float(n)) return 0;  // not the n-th largest
        ++n;
      }
    least = std::min(least, n);
  }
  if (least == 6)
    for (size_t v = 0; v < bw->vertex_count(); ++v)
      for (uint32_t c = 0; c < 6; ++c)
        if (bw->get(v, c) != kWeights[c]) return 0;
  return least;
}

}  // namespace

// For every writable format, the counts of the table: kept up to it, the rest dropped or reduced
// with a warning.
TEST(Capabilities, WritersHonourTheCounts) {
  struct Count {
    std::string capability;
    uint32_t used;
    std::function<Scene()> scene;
    std::function<uint32_t(const Scene&)> kept;
    std::string warning;
  };
  const std::vector<Count> counts = {
      {"uv_sets", 3, [] { return with_uv_sets(3); }, uv_sets_kept, "texture coordinate sets"},
      {"joints_per_vertex", 6, with_six_influences, influences_kept, "joint influence"},
  };
  for (const FormatInfo* f : round_trip_formats())
    for (const Count& c : counts) {
      SCOPED_TRACE(std::string(f->name) + " " + c.capability);
      Written w;
      try {
        w = write_and_read(c.scene(), f->format);
      } catch (const Error& e) {
        ADD_FAILURE() << e.what();
        continue;
      }
      const uint32_t holds = count_capability(*f, c.capability);
      EXPECT_EQ(c.kept(w.back), std::min(holds, c.used)) << messages(w.diags);
      if (holds < c.used) {
        EXPECT_TRUE(has_warning(w.diags, c.warning)) << messages(w.diags);
      }
    }
}

// Index width: a mesh of 65,538 vertices is an error where the table holds 16 bits, kept whole where
// it holds more; a format of no mesh (0) writes none.
TEST(Capabilities, IndexWidthAsTheTableSays) {
  Scene s = with_mesh([](Scene& s) {
    Mesh& m = s.meshes[0];
    m.streams.resize(3);
    const uint32_t n = 65538;
    for (VertexStream& st : m.streams) st.data.assign(size_t(n) * st.components, 0.0f);
    for (uint32_t v = 0; v < n; ++v) m.streams[0].data[v * 3] = float(v), m.streams[0].data[v * 3 + 1] = float(v % 3);
    m.triangles.resize(n);
    for (uint32_t v = 0; v < n; ++v) m.triangles[v] = v;
  });
  for (const FormatInfo* f : round_trip_formats()) {
    SCOPED_TRACE(f->name);
    const uint32_t bits = count_capability(*f, "index_bits");
    if (bits > 0 && bits <= 16) {
      EXPECT_THROW(write_and_read(s, f->format), Error);
      continue;
    }
    const Written w = write_and_read(s, f->format);
    size_t vertices = 0;
    for (const Mesh& m : w.back.meshes) vertices += m.vertex_count();
    EXPECT_EQ(vertices, bits ? 65538u : 0u) << messages(w.diags);
  }
}

// Influences fitted as IQM's writer keeps them: repeated joints merged, the n largest in their
// order, divided by their sum; a vertex that fits keeps its values.
TEST(Capabilities, FitReducesInfluences) {
  Scene s = triangle();
  s.meshes[0].streams[3] = testutil::float_stream(Attribute::BlendIndices, 3, {0, 1, 0, 2, 1, 0, 0, 0, 0});
  s.meshes[0].streams[4] = testutil::float_stream(Attribute::BlendWeights, 3, {0.5f, 0.3f, 0.2f, 0.1f, 0.6f, 0.3f,
                                                                               0.75f, 0, 0});
  Diagnostics d;
  const Scene out = fit_to_format(s, Format::Qmsh, {}, d);
  const Mesh& m = out.meshes[0];
  EXPECT_EQ(m.find(Attribute::BlendIndices)->data, (std::vector<float>{0, 1, 1, 0, 0, 0}));
  const float merged = 0.5f + 0.2f, first0 = float(double(merged) / (double(merged) + 0.3f)),
              first1 = float(double(0.6f) / (double(0.6f) + 0.3f));
  EXPECT_EQ(m.find(Attribute::BlendWeights)->data,
            (std::vector<float>{first0, 1.0f - first0, first1, 1.0f - first1, 0.75f, 0}));
  // More than two: divided by their float sum, as IQM's writer does.
  Diagnostics iqm;
  s.meshes[0].streams[3] = testutil::float_stream(Attribute::BlendIndices, 5, {0, 1, 2, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
  s.meshes[0].streams[4] = testutil::float_stream(Attribute::BlendWeights, 5, {0.1f, 0.4f, 0.2f, 0.2f, 0.3f, 1, 0, 0, 0, 0,
                                                                               1, 0, 0, 0, 0});
  const Scene fitted_iqm = fit_to_format(s, Format::Iqm, {}, iqm);
  const Mesh& four = fitted_iqm.meshes[0];
  EXPECT_EQ(four.find(Attribute::BlendIndices)->data, (std::vector<float>{0, 1, 2, 3, 0, 0, 0, 0, 0, 0, 0, 0}));
  const float joint0 = 0.1f + 0.3f, sum = joint0 + 0.4f + 0.2f + 0.2f;  // vertex 0: joint 0's weights merged
  EXPECT_EQ(four.find(Attribute::BlendWeights)->data,
            (std::vector<float>{joint0 / sum, 0.4f / sum, 0.2f / sum, 0.2f / sum, 1, 0, 0, 0, 1, 0, 0, 0}));
  ASSERT_EQ(iqm.items.size(), 1u) << messages(iqm);
  EXPECT_EQ(iqm.items[0].message, "1 vertices have more than 4 joint influences: the 4 largest are kept, renormalised; "
                                  "iqm holds 4 per vertex ('tri': 1)");
  ASSERT_EQ(d.items.size(), 1u) << messages(d);
  EXPECT_EQ(d.items[0].message, "2 vertices have more than 2 joint influences: the 2 largest are kept, renormalised; "
                                "qmsh holds 2 per vertex ('tri': 2)");
}

// What OBJ cannot hold of two meshes' vertices: one warning per kind, naming the meshes.
TEST(Capabilities, FitDropsVertexDataNamingTheMeshes) {
  Scene s = triangle();
  Mesh& m = s.meshes[0];
  m.streams.push_back(testutil::float_stream(Attribute::Color, 4, {1, 0, 0, 0.5f, 0, 1, 0, 1, 0, 0, 1, 1}));
  m.streams.push_back(named(Attribute::Custom, "texcoord1", 2, {0, 0, 1, 0, 0, 1}));
  m.streams.push_back(named(Attribute::Custom, "heat", 1, {1, 2, 3}));
  m.streams.push_back(named(Attribute::Custom, "pie.point", 1, {0, 1, 2}));  // a format's own: kept
  MorphTarget t;
  t.positions.assign(9, 0.0f);
  m.morph_targets.push_back(t);
  s.meshes.push_back(m);
  s.meshes[1].name = "tri2";
  Diagnostics d;
  const Scene out = fit_to_format(s, Format::Obj, {}, d);
  ASSERT_EQ(d.items.size(), 5u) << messages(d);
  EXPECT_EQ(d.items[0].message,
            "the alpha of the vertex colours of 2 meshes is not written: obj colours have no alpha ('tri', 'tri2')");
  EXPECT_EQ(d.items[1].message,
            "2 texture coordinate sets are not written: obj holds 1 ('tri': texcoord1, 'tri2': texcoord1)");
  EXPECT_EQ(d.items[2].message,
            "2 custom vertex arrays are not written: obj has no custom vertex arrays ('tri': heat, 'tri2': heat)");
  EXPECT_EQ(d.items[3].message,
            "the joint influences (blend weights) of 2 meshes are not written: obj has no skinning ('tri', 'tri2')");
  EXPECT_EQ(d.items[4].message, "2 morph targets are not written: obj has no morph targets ('tri': 1, 'tri2': 1)");
  for (const Mesh& o : out.meshes) {
    ASSERT_EQ(o.streams.size(), 5u);
    EXPECT_EQ(o.streams[3].attribute, Attribute::Color);
    EXPECT_EQ(o.streams[3].data, (std::vector<float>{1, 0, 0, 0, 1, 0, 0, 0, 1}));
    EXPECT_EQ(o.streams[4].name, "pie.point");
    EXPECT_TRUE(o.morph_targets.empty());
  }
  Diagnostics pie;
  fit_to_format(s, Format::Pie, {}, pie);
  EXPECT_TRUE(has_warning(pie, "the vertex colours of 2 meshes are not written: pie has no vertex colours ('tri', "
                               "'tri2')"))
      << messages(pie);
  Diagnostics glb;
  EXPECT_EQ(fit_to_format(s, Format::Glb, {}, glb), s);
  EXPECT_TRUE(glb.items.empty()) << messages(glb);
}

// Formats without texture transforms get the base colour's baked into the coordinates.
TEST(Capabilities, TextureTransformsBakedWhereNotHeld) {
  Scene s = triangle();
  s.materials[0].base_color_transform.offset = {0.5f, 0};
  for (const FormatInfo& f : formats()) {
    Diagnostics d;
    const Scene out = fit_to_format(s, f.format, {}, d);
    const VertexStream* uv = out.meshes[0].find(Attribute::Texcoord);
    if (!uv) {  // a format of no texture coordinates (a ModeDef .path holds no mesh)
      EXPECT_EQ(f.holds.uv_sets, 0u) << f.name;
      continue;
    }
    const float u = uv->data[0];
    EXPECT_EQ(u, f.holds.texture_transforms ? 0.0f : 0.5f) << f.name;
    EXPECT_EQ(out.materials[0].base_color_transform.is_identity(), !f.holds.texture_transforms) << f.name;
  }
}

TEST(Capabilities, CompressionRefusedWhereNotHeld) {
  WriteOptions o;
  o.compress = true;
  for (const FormatInfo& f : formats()) {
    Diagnostics d;
    bool refused = false;
    try {
      fit_to_format(triangle(), f.format, o, d);
    } catch (const Error& e) {
      refused = true;
      EXPECT_EQ(e.diagnostic().message,
                "compression (--compress) is for glTF output (.gltf, .glb) only, not " + std::string(f.name));
    }
    EXPECT_EQ(refused, !f.holds.compression) << f.name;
  }
}

// The ModeDef .state (not written from a Scene of meshes): fit_to_format does what its row says.
TEST(Capabilities, StateFitFollowsItsRow) {
  const FormatCapabilities& h = format_info(Format::ModeDefState).holds;
  Scene s = animated([](Animation& a) { a.times = {0, 0.1f, 0.35f}; });
  s.meshes[0].instances = {Transform{}, Transform{}};
  Diagnostics d;
  const Scene out = fit_to_format(s, Format::ModeDefState, {}, d);
  EXPECT_EQ(out.animations.size(), h.skeletal_animation ? 1u : 0u);
  EXPECT_EQ(out.animations.at(0).times.size(), h.uneven_keys ? 3u : 0u);
  EXPECT_EQ(out.meshes[0].instances.size(), h.gpu_instances ? 2u : 0u);
}

TEST(Capabilities, FitResamplesUnevenKeys) {
  Scene s = animated([](Animation& a) { a.times = {0, 0.1f, 0.35f}; });
  Diagnostics d;
  const Scene out = fit_to_format(s, Format::Iqm, {}, d);
  ASSERT_EQ(out.animations.size(), 1u);
  EXPECT_TRUE(out.animations[0].times.empty());
  EXPECT_EQ(out.animations[0].frame_count(), 5u);  // 0.35 s at 10 fps: frames 0..3.5
  EXPECT_EQ(out.animations[0].poses[1].translation[0], 1.0f);
  EXPECT_EQ(out.animations[0].poses[2].translation[0], 1.4f);
  ASSERT_EQ(d.items.size(), 1u) << messages(d);
  EXPECT_TRUE(has_warning(d, "animation 'walk' has unevenly spaced keys; iqm frames are evenly spaced: resampled at "
                             "10 fps"))
      << messages(d);
}

TEST(Capabilities, FitRefusesUnevenKeysWithResampleOff) {
  Scene s = animated([](Animation& a) { a.times = {0, 0.1f, 0.35f}; });
  WriteOptions o;
  o.resample.off = true;
  Diagnostics d;
  EXPECT_THROW(fit_to_format(s, Format::Pie, o, d), Error);
  EXPECT_EQ(fit_to_format(s, Format::Qmsh, o, d).animations[0].times.size(), 3u);
}

TEST(Capabilities, FitExpandsInstancesAndDropsLinesAndLods) {
  Scene s = triangle();
  Transform b;
  b.translation = {5, 0, 0};
  s.meshes[0].instances = {Transform{}, b};
  Mesh lines = s.meshes[0], lod = s.meshes[0];
  lines.topology = Topology::Lines, lines.instances.clear(), lines.triangles = {0, 1};
  lod.lod = 1, lod.lod_of = 0, lod.instances.clear();
  s.meshes.push_back(lines);
  s.meshes.push_back(lod);
  Diagnostics d;
  const Scene out = fit_to_format(s, Format::Obj, {}, d);
  ASSERT_EQ(out.meshes.size(), 1u) << messages(d);
  EXPECT_TRUE(out.meshes[0].instances.empty());
  EXPECT_EQ(out.meshes[0].streams[0].data.size(), 18u);
  EXPECT_EQ(out.meshes[0].streams[0].data[9], 5.0f);
  EXPECT_EQ(out.meshes[0].triangles, (std::vector<uint32_t>{0, 1, 2, 3, 4, 5}));
  EXPECT_TRUE(has_warning(d, "the GPU instances of 1 meshes written as copies merged into each mesh: obj has no "
                             "instancing"));
  Diagnostics kept;
  EXPECT_EQ(fit_to_format(s, Format::Glb, {}, kept).meshes.size(), 3u);
  EXPECT_TRUE(kept.items.empty()) << messages(kept);
}

TEST(Capabilities, FitWarnsAboutMorphTracksMaterialsAndStep) {
  Scene s = animated([](Animation& a) {
    a.interpolation = Interpolation::Step;
    MorphWeightTrack t;
    t.mesh = 0, t.times = {0}, t.weights = {1};
    a.morph_weights = {t, t};
  });
  s.materials[0].occlusion_texture.texture = "ao.png";
  Diagnostics d;
  fit_to_format(s, Format::Iqe, {}, d);
  ASSERT_EQ(d.items.size(), 3u) << messages(d);
  EXPECT_EQ(d.items[0].message, "2 morph weight tracks of animations are not written: iqe has no morph target animation");
  EXPECT_EQ(d.items[1].message, "material 'skin': occlusion texture not kept by IQE");
  EXPECT_EQ(d.items[2].message, "animation 'walk': iqe has no step interpolation: its 3 frames hold the STEP poses "
                                "exactly, but players blend between them instead of holding each until the next");
  Diagnostics obj;
  const Scene out = fit_to_format(s, Format::Obj, {}, obj);
  EXPECT_TRUE(out.animations.empty());
  EXPECT_TRUE(has_warning(obj, "1 animations are not written: obj has no skeletal animation")) << messages(obj);
}

TEST(Capabilities, FamiliesHoldTheSame) {
  for (const FormatInfo& a : formats())
    for (const FormatInfo& b : formats())
      if (a.family == b.family) {
        for (size_t i = 0; i < capability_list(a.holds).size(); ++i)
          EXPECT_EQ(capability_list(a.holds)[i].value, capability_list(b.holds)[i].value)
              << a.name << " " << b.name << " " << capability_list(a.holds)[i].name;
      }
}

TEST(Capabilities, FormatsJson) {
  const nlohmann::json j = formats_json();
  ASSERT_EQ(j.size(), formats().size());
  const nlohmann::json& obj = j[4];
  EXPECT_EQ(obj["name"], "obj");
  EXPECT_EQ(obj["description"], "Wavefront OBJ with MTL materials");
  EXPECT_EQ(obj["extensions"], nlohmann::json::array({".obj"}));
  EXPECT_EQ(obj["can_read"], true);
  EXPECT_EQ(obj["can_write"], true);
  EXPECT_EQ(obj["family"], "OBJ");
  EXPECT_EQ(obj["holds"].size(), capability_list({}).size());
  EXPECT_EQ(obj["holds"]["emissive_texture"], true);
  EXPECT_EQ(obj["holds"]["every_material"], true);
  EXPECT_EQ(obj["holds"]["lines_and_points"], false);
  EXPECT_EQ(j[3]["holds"]["compression"], true);  // glb
  // Counts are numbers, null where any number is held.
  EXPECT_EQ(obj["holds"]["uv_sets"], 1);
  EXPECT_EQ(obj["holds"]["vertex_colour_alpha"], false);
  EXPECT_EQ(j[1]["holds"]["joints_per_vertex"], 4);  // iqm
  EXPECT_EQ(j[1]["holds"]["index_bits"], 32);
  EXPECT_TRUE(j[3]["holds"]["uv_sets"].is_null());
  EXPECT_EQ(j[7]["holds"]["index_bits"], 16);  // qmsh
  EXPECT_EQ(j[11]["holds"]["index_bits"], 0);  // modedef-path: no mesh
  EXPECT_EQ(j[1]["extensions"], nlohmann::json::array({".iqm", ".vvm"}));
}

TEST(Capabilities, CountsPrintReadably) {
  EXPECT_EQ(capability_text({"uv_sets", "", true, true, kAnyNumber}), "any");
  EXPECT_EQ(capability_text({"uv_sets", "", true, true, 4}), "4");
  EXPECT_EQ(capability_text({"uv_sets", "", false, true, 0}), "no");
  EXPECT_EQ(capability_text({"lods", "", true}), "yes");
  EXPECT_EQ(capability_text({"lods", "", false}), "no");
}

// docs/formats.md's section "What each format holds" holds the table capabilities_markdown() renders.
TEST(Capabilities, DocsTableIsTheLibrarys) {
  std::ifstream in(std::string(MESHPORT_TEST_DATA) + "/../../docs/formats.md");
  ASSERT_TRUE(in) << "docs/formats.md";
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string doc = ss.str();
  const size_t section = doc.find("## What each format holds");
  ASSERT_NE(section, std::string::npos);
  const size_t start = doc.find("| Holds |", section);
  ASSERT_NE(start, std::string::npos) << "expected in docs/formats.md:\n" << capabilities_markdown();
  size_t end = doc.find("\n\n", start);
  const std::string table = doc.substr(start, end == std::string::npos ? std::string::npos : end + 1 - start);
  EXPECT_EQ(table, capabilities_markdown()) << "expected in docs/formats.md:\n" << capabilities_markdown();
}

}  // namespace meshport_test_capabilities
