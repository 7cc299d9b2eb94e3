// The CLI's allocation function: with MESHPORT_HUGE_PAGES=1, large blocks are asked to be backed
// by huge pages.
//
// A 1M-vertex conversion takes about 117,000 page faults: its arrays are fresh memory (main.cpp
// maps every block of 1 MB and more on its own, so that a step's arrays go back to the system
// when it ends), which the system zero-fills and maps 4 KB at a time. With transparent huge
// pages in their default "madvise" mode, the 2 MB pages inside a large block that this advice
// marks are mapped whole instead: 35,000 faults. Whether that is faster depends on the machine.
// Issue 19 measured 5 % less wall time (median 0.79 -> 0.745 s). Issue 35, on a virtual machine
// whose free memory goes back to its host (each huge page taken then costs the host's faults on
// first use), measured the opposite converting the one-mesh model: 0.76 s (0.74-0.80) without
// the advice against 0.85 s (0.65-1.01) with it, 12 runs each alternating, and a long stall of
// the thread that clears those pages. So the advice is off unless asked for. The library sets no
// such process-wide policy: a program embedding it chooses its own allocator.
#include "huge_pages.h"

#include <atomic>
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

namespace meshport::cli {
namespace {
std::atomic<bool> advise{false};
}  // namespace

bool use_huge_pages(bool on) {
  advise.store(on && MESHPORT_OWN_NEW, std::memory_order_relaxed);
  return advise.load(std::memory_order_relaxed);
}

}  // namespace meshport::cli

#if MESHPORT_OWN_NEW

// The other forms (new[], nothrow) call this one; the matching deletes call free(). The
// sanitizers' builds keep their own, which check every allocation.
void* operator new(std::size_t n) {
  void* p = std::malloc(n ? n : 1);
  if (!p) throw std::bad_alloc();
  if (meshport::cli::advise.load(std::memory_order_relaxed)) meshport::cli::advise_huge_pages(p, n);
  return p;
}

#endif
