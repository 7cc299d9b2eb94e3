// The CLI's allocation function: large blocks are asked to be backed by huge pages.
//
// A 1M-vertex conversion takes about 134,000 page faults: its arrays are fresh memory (main.cpp
// maps every block of 1 MB and more on its own, so that a step's arrays go back to the system
// when it ends), which the system zero-fills and maps 4 KB at a time, and the input and output
// files are mapped too. They are most of its 0.35 s of system time. With transparent huge pages in their default "madvise"
// mode, the 2 MB pages inside a large block that this advice marks are mapped whole instead:
// 89,000 faults, and in runs alternating with a build without it, median wall time 0.79 ->
// 0.745 s (8 runs each) and 1.10 -> 1.04 s (10 runs each, in a busier period), the same output
// and peak memory (issue 19). The library sets no such process-wide policy: a program embedding
// it chooses its own allocator.
#include "huge_pages.h"

#include <cstdlib>
#include <new>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define MESHPORT_OWN_NEW 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define MESHPORT_OWN_NEW 0
#endif
#endif
#ifndef MESHPORT_OWN_NEW
#if defined(__linux__) && defined(MADV_HUGEPAGE)
#define MESHPORT_OWN_NEW 1
#else
#define MESHPORT_OWN_NEW 0
#endif
#endif

#if MESHPORT_OWN_NEW

// The other forms (new[], nothrow) call this one; the matching deletes call free(). The
// sanitizers' builds keep their own, which check every allocation.
void* operator new(std::size_t n) {
  void* p = std::malloc(n ? n : 1);
  if (!p) throw std::bad_alloc();
  meshport::cli::advise_huge_pages(p, n);
  return p;
}

#endif
