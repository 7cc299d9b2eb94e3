// Vectors whose resize() leaves new elements uninitialised: for arrays written in full right after
// they are sized (often in parts, on threads), so that no memset on the calling thread touches
// their pages first, and for buffers a parser writes into directly.
#pragma once

#include <memory>
#include <new>
#include <utility>
#include <vector>

namespace meshport {

// std::allocator, except that an element made without arguments is default-initialised (for a
// trivial type: left as it is) instead of value-initialised (zeroed).
template <class T>
struct UninitAllocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = UninitAllocator<U>;
  };
  UninitAllocator() = default;
  template <class U>
  UninitAllocator(const UninitAllocator<U>&) noexcept {}
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    if constexpr (sizeof...(Args) == 0)
      ::new (static_cast<void*>(p)) U;
    else
      ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

template <class T>
using Filled = std::vector<T, UninitAllocator<T>>;

}  // namespace meshport
