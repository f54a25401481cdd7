#pragma once
// The executable's heap on transparent huge pages, where tcmalloc grows it (see heap_pages.cpp).

namespace tmasim::cli {

// Asks tcmalloc to tell each growth of the heap, and advises the new range for huge pages
// (a small one is also made present at once), and first grows it by a large free span.
// Does nothing without tcmalloc (glibc's allocator, the sanitizer and fuzz builds) or where the
// kernel has no transparent huge pages.
void advise_heap_huge_pages();

}  // namespace tmasim::cli
