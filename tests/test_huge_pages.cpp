// tools/meshport/huge_pages.h: the CLI's allocation function advises huge pages for exactly the
// whole 2 MB pages inside a large block (the kernel records the advice as the `hg` flag of the
// mapping, shown in /proc/self/smaps whether or not it then finds huge pages).
#include "../tools/meshport/huge_pages.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <sys/mman.h>

namespace meshport_test_huge_pages {

namespace {

struct Mapping {
  uintptr_t begin = 0, end = 0;
  bool huge = false;  // VmFlags has "hg" (MADV_HUGEPAGE)
};

// The mapping of this process that holds `address`.
Mapping mapping_at(uintptr_t address) {
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  Mapping current, found;
  bool inside = false;
  while (std::getline(smaps, line)) {
    const size_t dash = line.find('-'), space = line.find(' ');
    if (dash != std::string::npos && space != std::string::npos && dash < space &&
        line.find_first_not_of("0123456789abcdef") == dash) {
      current.begin = std::stoull(line.substr(0, dash), nullptr, 16);
      current.end = std::stoull(line.substr(dash + 1, space - dash - 1), nullptr, 16);
      current.huge = false;
      inside = address >= current.begin && address < current.end;
    } else if (inside && line.starts_with("VmFlags:")) {
      std::istringstream flags(line.substr(8));
      for (std::string f; flags >> f;) current.huge = current.huge || f == "hg";
      found = current;
    }
  }
  return found;
}

}  // namespace

TEST(HugePages, AdviceCoversTheWholeHugePagesInsideABlockOnly) {
  using meshport::cli::advise_huge_pages;
  using meshport::cli::kHugePage;
  const size_t length = 16 << 20;
  void* m = ::mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(m, MAP_FAILED);
  const uintptr_t a = (uintptr_t(m) + kHugePage - 1) & ~(kHugePage - 1);  // a 2 MB boundary inside

  // A 7 MB block 4 KB past the boundary: the whole huge pages inside are [a + 2 MB, a + 6 MB).
  ASSERT_TRUE(advise_huge_pages(reinterpret_cast<void*>(a + 4096), 7 << 20));
  const Mapping inside = mapping_at(a + kHugePage);
  EXPECT_TRUE(inside.huge);
  EXPECT_EQ(inside.begin, a + kHugePage);
  EXPECT_EQ(inside.end, a + 3 * kHugePage);
  const Mapping before = mapping_at(a + 4096), after = mapping_at(a + 3 * kHugePage);
  EXPECT_FALSE(before.huge);
  EXPECT_EQ(before.end, a + kHugePage);
  EXPECT_FALSE(after.huge);
  EXPECT_EQ(after.begin, a + 3 * kHugePage);

  // Under two huge pages: no advice, even when it would cover one whole page.
  EXPECT_FALSE(advise_huge_pages(reinterpret_cast<void*>(a + 4 * kHugePage), 2 * kHugePage - 1));
  EXPECT_FALSE(mapping_at(a + 4 * kHugePage).huge);
  ::munmap(m, length);
}

}  // namespace meshport_test_huge_pages
