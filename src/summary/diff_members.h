// The named fields of the format side data structs (include/meshport/source/), for diff to say
// which field of an entry differs ("pie.levels[0].points: 12 items vs 13 items"). Internal to
// src/summary/diff.cpp. A struct listed here must list every field it compares with ==: a field added
// to one of them belongs here too.
#pragma once

#include <meshport/scene.h>

#include <tuple>

namespace meshport::diff_members {

template <class T>
struct Member {
  const char* name;
  const T& value;
};

#define MP_M(f) Member<decltype(x.f)>{#f, x.f}

inline auto members(const PieTexture& x) {
  return std::tuple{MP_M(kind), MP_M(tileset), MP_M(file), MP_M(has_size), MP_M(width), MP_M(height)};
}
inline auto members(const PieSettings& x) {
  return std::tuple{MP_M(has_type), MP_M(type), MP_M(has_interpolate), MP_M(interpolate), MP_M(textures)};
}
inline auto members(const PieEvent& x) { return std::tuple{MP_M(type), MP_M(file)}; }
inline auto members(const PieAnimFrame& x) {
  return std::tuple{MP_M(frame), MP_M(position), MP_M(rotation), MP_M(scale)};
}
inline auto members(const PieAnimObject& x) { return std::tuple{MP_M(time), MP_M(cycles), MP_M(frames)}; }
inline auto members(const PieLevel& x) {
  return std::tuple{MP_M(mesh),       MP_M(joint),          MP_M(comment),           MP_M(overrides),
                    MP_M(materials),  MP_M(shaders),        MP_M(points),            MP_M(normals),
                    MP_M(has_animobject), MP_M(animobject), MP_M(has_shadow_points), MP_M(shadow_points),
                    MP_M(has_shadow_polygons), MP_M(shadow_polygons)};
}
inline auto members(const IqmExtension& x) { return std::tuple{MP_M(name), MP_M(data)}; }
inline auto members(const QmshTmpFace& x) {
  return std::tuple{MP_M(count), MP_M(material), MP_M(smooth), MP_M(vertex), MP_M(uv)};
}
inline auto members(const QmshTmpVertexGroup& x) { return std::tuple{MP_M(name), MP_M(vertices), MP_M(weights)}; }
inline auto members(const QmshTmpMesh& x) {
  return std::tuple{MP_M(name),         MP_M(position),  MP_M(orientation), MP_M(size),  MP_M(parent_armature),
                    MP_M(parent_bone),  MP_M(auto_smooth_angle), MP_M(materials), MP_M(vertices), MP_M(faces),
                    MP_M(vertex_groups)};
}
inline auto members(const QmshTmpBone& x) {
  return std::tuple{MP_M(name),          MP_M(parent),      MP_M(head_bone),  MP_M(head_armature),
                    MP_M(head_radius),   MP_M(tail_bone),   MP_M(tail_armature), MP_M(tail_radius),
                    MP_M(roll_bone),     MP_M(roll_armature), MP_M(length),   MP_M(weight),
                    MP_M(matrix_bone),   MP_M(matrix_armature)};
}
inline auto members(const QmshTmpArmature& x) {
  return std::tuple{MP_M(name),          MP_M(position), MP_M(orientation), MP_M(size),
                    MP_M(vertex_groups), MP_M(envelopes), MP_M(bones)};
}
inline auto members(const QmshTmpCurve& x) {
  return std::tuple{MP_M(name), MP_M(interpolation), MP_M(extend), MP_M(points)};
}
inline auto members(const QmshTmpChannel& x) { return std::tuple{MP_M(name), MP_M(curves)}; }
inline auto members(const QmshTmpAction& x) { return std::tuple{MP_M(name), MP_M(channels)}; }
inline auto members(const ModeDefFace& x) { return std::tuple{MP_M(vertex), MP_M(normal), MP_M(texcoord)}; }
inline auto members(const ModeDefMaterial& x) {
  return std::tuple{MP_M(ambient), MP_M(diffuse), MP_M(specular), MP_M(emissive), MP_M(specular_strength)};
}
inline auto members(const ModeDefGroup& x) { return std::tuple{MP_M(first), MP_M(last), MP_M(material)}; }
inline auto members(const ModeDefCartonVertex& x) { return std::tuple{MP_M(tet), MP_M(bary)}; }
inline auto members(const ModeDefIndexing& x) {
  return std::tuple{MP_M(face_base), MP_M(group_base), MP_M(group_end_inclusive), MP_M(tet_base), MP_M(carton_base)};
}
inline auto members(const ModeDefModel& x) {
  return std::tuple{MP_M(eigenvalues), MP_M(eigenvectors), MP_M(rest),   MP_M(vertices), MP_M(normals),
                    MP_M(texcoords),   MP_M(faces),        MP_M(materials), MP_M(groups), MP_M(tets),
                    MP_M(carton),      MP_M(carton_vertices), MP_M(indexing)};
}
inline auto members(const ModeDefProp& x) {
  return std::tuple{MP_M(model_file), MP_M(rigid_body), MP_M(deform), MP_M(mass),     MP_M(center_of_mass),
                    MP_M(inertia),    MP_M(unused1),    MP_M(lame),   MP_M(damping1), MP_M(damping2),
                    MP_M(scale),      MP_M(unused2),    MP_M(kp),     MP_M(kv),       MP_M(kb)};
}
inline auto members(const ModeDefPathKey& x) { return std::tuple{MP_M(time), MP_M(value)}; }
inline auto members(const ModeDefPath& x) { return std::tuple{MP_M(translation), MP_M(rotation)}; }
inline auto members(const ModeDefObject& x) {
  return std::tuple{MP_M(name),  MP_M(animated), MP_M(position), MP_M(rotation), MP_M(velocity),
                    MP_M(angular_velocity), MP_M(birth), MP_M(death), MP_M(path_file)};
}
inline auto members(const ModeDefPlane& x) { return std::tuple{MP_M(normal), MP_M(point)}; }
inline auto members(const ModeDefConstraint& x) { return std::tuple{MP_M(body1), MP_M(body2), MP_M(point)}; }
inline auto members(const ModeDefState& x) {
  return std::tuple{MP_M(fps),           MP_M(use_penalty),    MP_M(gravity), MP_M(friction),
                    MP_M(max_penetration), MP_M(cluster_factor), MP_M(cluster_radius), MP_M(objects),
                    MP_M(planes),        MP_M(constraints)};
}
inline auto members(const ModeDefModelFile& x) { return std::tuple{MP_M(file), MP_M(model)}; }
inline auto members(const ModeDefPropFile& x) { return std::tuple{MP_M(file), MP_M(prop), MP_M(model)}; }
inline auto members(const ModeDefPathFile& x) { return std::tuple{MP_M(file), MP_M(path)}; }
inline auto members(const ModeDefMeshSource& x) {
  return std::tuple{MP_M(mesh), MP_M(model), MP_M(object), MP_M(group), MP_M(vertex), MP_M(normal)};
}

#undef MP_M

template <class T>
concept HasMembers = requires(const T& x) { members(x); };

}  // namespace meshport::diff_members
