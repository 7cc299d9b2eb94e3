// The format table's capabilities (formats.h) against the writers, fit_to_format, `formats --json`
// and docs/formats.md: a value the code does not honour fails here.
#include <meshport/formats.h>
#include <meshport/meshport.h>
#include <meshport/summary.h>

#include "image/image.h"
#include "test_util.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

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
};

Written write_and_read(const Scene& s, Format format, const WriteOptions& given = {}) {
  const fs::path dir = fs::temp_directory_path() / ("meshport_caps_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string path = (dir / ("probe" + std::string(format_info(format).extensions.front()))).string();
  WriteOptions o = given;
  o.format = format;
  Written w;
  write(s, path, o, &w.diags);
  w.back = read(path, {}, &w.diags);
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
      SCOPED_TRACE(std::string(f->name) + " " + p.capability);
      Written w;
      try {
        w = write_and_read(p.scene(), f->format);
      } catch (const Error& e) {
        ADD_FAILURE() << e.what();
        continue;
      }
      const bool holds = capability(*f, p.capability);
      EXPECT_EQ(p.kept(w.back), holds) << messages(w.diags);
      if (!holds && !p.warning.empty()) {
        const bool whole = p.of_animation && !f->holds.skeletal_animation;
        EXPECT_TRUE(has_warning(w.diags, whole ? "no skeletal animation" : p.warning)) << messages(w.diags);
      }
    }
}

// Formats without texture transforms get the base colour's baked into the coordinates.
TEST(Capabilities, TextureTransformsBakedWhereNotHeld) {
  Scene s = triangle();
  s.materials[0].base_color_transform.offset = {0.5f, 0};
  for (const FormatInfo& f : formats()) {
    Diagnostics d;
    const Scene out = fit_to_format(s, f.format, {}, d);
    const float u = out.meshes[0].streams[2].data[0];
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
  EXPECT_EQ(j[1]["extensions"], nlohmann::json::array({".iqm", ".vvm"}));
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
