// Huge pages for large blocks (huge_pages.cpp: the CLI's allocation function).
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace meshport::cli {

constexpr uintptr_t kHugePage = uintptr_t(2) << 20;

// Advises the system to back the whole 2 MB pages inside [p, p + n) with huge pages (the
// advice only: where the system has none, nothing changes). Blocks smaller than two huge pages
// are left alone; so are the partial pages at either end, which other blocks may share. True
// when advice was given.
inline bool advise_huge_pages(void* p, size_t n) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (n < 2 * kHugePage) return false;
  const uintptr_t begin = (uintptr_t(p) + kHugePage - 1) & ~(kHugePage - 1);
  const uintptr_t end = (uintptr_t(p) + n) & ~(kHugePage - 1);
  return end > begin && ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE) == 0;
#else
  (void)p, (void)n;
  return false;
#endif
}

// Turns the allocation function's advice on or off (off at start; main() turns it on when
// MESHPORT_HUGE_PAGES is 1). Returns whether it is on: never in builds with the sanitizers' own
// allocation functions.
bool use_huge_pages(bool on);

}  // namespace meshport::cli
