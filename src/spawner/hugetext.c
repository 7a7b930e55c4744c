/* geno-spawner's code and constants in transparent huge pages.
 *
 * Why: fork copies the page-table entries of anonymous memory but not of
 * a file mapping, so every sandboxed child the spawner forks faulted in
 * each page of code and of constants it ran or read: about 22 of the 50
 * page faults a small run made, each a trap that a paravirtualised MMU
 * makes dear. Anonymous memory in 2 MiB huge pages is copied at fork as
 * one entry per 2 MiB: the child finds its code and constants mapped.
 *
 * How: the executable is linked with its segments 2 MiB aligned
 * (CMakeLists.txt, -z max-page-size=0x200000). Each read-only segment is
 * copied into a fresh 2 MiB-aligned anonymous region advised
 * MADV_HUGEPAGE, the copy is checked to be backed by huge pages
 * (/proc/self/smaps), given the segment's protection and moved over the
 * segment with one mremap. The code that moves it runs from the segment
 * being replaced, which is safe because the bytes are identical and the
 * replacement is a single system call in a single-threaded process. Every
 * check that fails leaves the segment as it was. */
#include "hugetext.h"

#include "../sandbox/sandbox.h"

#include <link.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif

#define HUGE_SIZE ((uintptr_t)2 << 20)
#define SMALL_PAGE ((uintptr_t)4096)
#define MAX_SEGMENTS 16

static uintptr_t round_up(uintptr_t v, uintptr_t to) { return (v + to - 1) / to * to; }

typedef struct Segment {
  uintptr_t start, size; /* in memory, as loaded */
  uintptr_t align;       /* the linker's p_align */
  bool headers;          /* at file offset 0 and not code: the ELF headers and notes */
  int prot;
  bool writable;
} Segment;

typedef struct Segments {
  Segment s[MAX_SEGMENTS];
  size_t n;
} Segments;

/* The executable's loadable segments (the first object reported). */
static int collect(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  Segments *out = data;
  for (size_t i = 0; i < info->dlpi_phnum && out->n < MAX_SEGMENTS; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD) continue;
    Segment *s = &out->s[out->n++];
    s->start = (uintptr_t)info->dlpi_addr + (uintptr_t)ph->p_vaddr;
    s->size = (uintptr_t)ph->p_memsz;
    s->align = (uintptr_t)ph->p_align;
    s->prot = ((ph->p_flags & PF_R) ? PROT_READ : 0) | ((ph->p_flags & PF_X) ? PROT_EXEC : 0);
    s->writable = (ph->p_flags & PF_W) != 0;
    s->headers = ph->p_offset == 0 && !(ph->p_flags & PF_X);
  }
  return 1; /* the executable only */
}

/* Bytes of the mapping that starts at `start` backed by huge pages, from
 * /proc/self/smaps; 0 when not found. */
static uintptr_t huge_bytes_at(uintptr_t start) {
  FILE *f = fopen("/proc/self/smaps", "re");
  if (!f) return 0;
  char line[512];
  bool in = false;
  unsigned long kb = 0;
  while (fgets(line, sizeof line, f)) {
    unsigned long lo, hi;
    char perms[8];
    if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) == 3) { /* a mapping's first line */
      if (in) break; /* past the mapping */
      in = lo == start;
    } else if (in && sscanf(line, "AnonHugePages: %lu kB", &kb) == 1) {
      break;
    }
  }
  fclose(f);
  return in ? (uintptr_t)kb * 1024 : 0;
}

/* Move one segment; false leaves it as it was. */
static bool move_segment(const Segment *seg, const Segments *all) {
  /* the headers are read at start only: 2 MiB for them would be waste */
  if (seg->writable || seg->headers || !seg->prot || seg->align < HUGE_SIZE || seg->start % HUGE_SIZE) return false;
  uintptr_t end = round_up(seg->start + seg->size, HUGE_SIZE);
  uintptr_t mapped_end = round_up(seg->start + seg->size, SMALL_PAGE);
  for (size_t i = 0; i < all->n; i++) { /* nothing else of the executable in the range */
    const Segment *o = &all->s[i];
    if (o != seg && o->start < end && o->start + o->size > seg->start) return false;
  }
  size_t len = (size_t)(end - seg->start);
  /* The segment's last huge page reaches past it: that stretch must be
   * free (it is reserved here, so nothing lands there meanwhile). */
  void *gap = NULL;
  if (end > mapped_end) {
    gap = mmap((void *)mapped_end, (size_t)(end - mapped_end), PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
               -1, 0);
    if (gap == MAP_FAILED) return false;
    if (gap != (void *)mapped_end) { /* a kernel that took the address as a hint */
      munmap(gap, (size_t)(end - mapped_end));
      return false;
    }
  }
  /* the copy, 2 MiB aligned: over-allocate, trim both ends */
  char *raw = mmap(NULL, len + HUGE_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) goto fail_gap;
  char *copy = (char *)round_up((uintptr_t)raw, HUGE_SIZE);
  if (copy > raw) munmap(raw, (size_t)(copy - raw));
  if (copy + len < raw + len + HUGE_SIZE) munmap(copy + len, (size_t)(raw + len + HUGE_SIZE - (copy + len)));
  if (madvise(copy, len, MADV_HUGEPAGE) != 0) goto fail_copy;
  /* the bytes the mapping shows, whole pages (past the segment's end the
   * copy reads as zeros, as the reserved stretch did) */
  memcpy(copy, (const void *)seg->start, (size_t)(mapped_end - seg->start));
  if (huge_bytes_at((uintptr_t)copy) < len) {
    /* no huge page at the first touch (memory fragmented): one attempt
     * to assemble them now; refused where huge pages are disabled */
    if (madvise(copy, len, MADV_COLLAPSE) != 0 || huge_bytes_at((uintptr_t)copy) < len) goto fail_copy;
  }
  if (mprotect(copy, len, seg->prot) != 0) goto fail_copy;
  /* From here the code runs from either mapping: the same bytes. */
  void *moved = mremap(copy, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, (void *)seg->start);
  /* mremap checks everything before it unmaps the destination; only a
   * lack of memory for page tables fails later (nothing then runs on) */
  if (moved != (void *)seg->start) goto fail_copy;
  return true;
fail_copy:
  munmap(copy, len);
fail_gap:
  if (gap) munmap(gap, (size_t)(end - mapped_end));
  return false;
}

size_t spawner_huge_text(void) {
  if (sysconf(_SC_PAGESIZE) != (long)SMALL_PAGE || !sbx_thp_allowed()) return 0;
  Segments all = {0};
  dl_iterate_phdr(collect, &all);
  size_t moved = 0;
  for (size_t i = 0; i < all.n; i++) moved += move_segment(&all.s[i], &all);
  return moved;
}
