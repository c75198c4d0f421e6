/*
 * An allocation counter for the leak tests, preloaded (LD_PRELOAD) into a child JVM.
 *
 * It counts only the blocks whose direct caller is code of the RDMA stack: libibverbs, librdmacm, the providers
 * (lib*-rdmav*.so) and libnl, which libibverbs uses to resolve RoCE addresses. The JVM's own native memory (JIT
 * arenas, GC) moves by megabytes in bursts and would hide a leak of a few bytes a cycle; here it is not counted.
 * Blocks that libc allocates on the stack's behalf (strdup, fopen) have libc as their caller and are not counted
 * either: the open file descriptors and the kernel's counts, checked beside this, cover those.
 *
 * ac_start() takes the address ranges of the stack's code (loaded by then) and starts counting afresh;
 * ac_outstanding() says how many blocks and bytes allocated since are still not freed; ac_report() writes them
 * grouped by caller (symbol+offset and library).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t size);
extern void __libc_free(void *p);
extern void *__libc_memalign(size_t alignment, size_t size);

#define MAX_RANGES 64
static struct { uintptr_t start, end; } ranges[MAX_RANGES];
static atomic_int range_count;

/* Live blocks by address: open addressing with linear probing, deletion by backward shift (no tombstones). */
#define SLOT_BITS 18
#define SLOTS (1u << SLOT_BITS)
#define MASK (SLOTS - 1)
struct slot {
    uintptr_t ptr;
    size_t size;
    uintptr_t caller;
};
static struct slot table[SLOTS];
static atomic_flag table_lock = ATOMIC_FLAG_INIT;
static atomic_long live_blocks;
static long live_bytes;
static int overflowed;

static void lock(void) {
    while (atomic_flag_test_and_set_explicit(&table_lock, memory_order_acquire)) {
    }
}

static void unlock(void) {
    atomic_flag_clear_explicit(&table_lock, memory_order_release);
}

static size_t home(uintptr_t p) {
    return (size_t) (((p >> 4) * 0x9E3779B97F4A7C15ull) >> (64 - SLOT_BITS));
}

static int from_stack(uintptr_t pc) {
    int n = atomic_load_explicit(&range_count, memory_order_acquire);
    for (int i = 0; i < n; i++) {
        if (pc - ranges[i].start < ranges[i].end - ranges[i].start) {
            return 1;
        }
    }
    return 0;
}

/* Under the lock. */
static void insert(uintptr_t p, size_t size, uintptr_t caller) {
    if (atomic_load_explicit(&live_blocks, memory_order_relaxed) >= SLOTS / 2) {
        overflowed = 1;
        return;
    }
    size_t i = home(p);
    while (table[i].ptr != 0 && table[i].ptr != p) {
        i = (i + 1) & MASK;
    }
    if (table[i].ptr == p) {
        live_bytes -= (long) table[i].size;
    } else {
        atomic_fetch_add_explicit(&live_blocks, 1, memory_order_relaxed);
    }
    table[i] = (struct slot) {p, size, caller};
    live_bytes += (long) size;
}

/* Under the lock. */
static void remove_block(uintptr_t p) {
    size_t i = home(p);
    while (table[i].ptr != p) {
        if (table[i].ptr == 0) {
            return;
        }
        i = (i + 1) & MASK;
    }
    live_bytes -= (long) table[i].size;
    atomic_fetch_sub_explicit(&live_blocks, 1, memory_order_relaxed);
    for (size_t j = (i + 1) & MASK; table[j].ptr != 0; j = (j + 1) & MASK) {
        size_t k = home(table[j].ptr);
        int stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
        if (!stays) {
            table[i] = table[j];
            i = j;
        }
    }
    table[i].ptr = 0;
}

static void *noted(void *p, size_t size, uintptr_t caller) {
    if (p != NULL && from_stack(caller)) {
        lock();
        insert((uintptr_t) p, size, caller);
        unlock();
    }
    return p;
}

/* Before the block goes back to malloc: afterwards another thread could be handed the same address. */
static void forget(void *p) {
    if (p != NULL && atomic_load_explicit(&live_blocks, memory_order_relaxed) > 0) {
        lock();
        remove_block((uintptr_t) p);
        unlock();
    }
}

void *malloc(size_t size) {
    return noted(__libc_malloc(size), size, (uintptr_t) __builtin_return_address(0));
}

void *calloc(size_t n, size_t size) {
    return noted(__libc_calloc(n, size), n * size, (uintptr_t) __builtin_return_address(0));
}

void free(void *p) {
    forget(p);
    __libc_free(p);
}

static void *resized(void *p, size_t size, uintptr_t caller) {
    if (p == NULL) {
        return noted(__libc_malloc(size), size, caller);
    }
    // Under the lock, so that the old address cannot be handed to another thread before it is forgotten.
    lock();
    void *q = __libc_realloc(p, size);
    if (q != NULL || size == 0) {
        remove_block((uintptr_t) p);
        if (q != NULL && from_stack(caller)) {
            insert((uintptr_t) q, size, caller);
        }
    }
    unlock();
    return q;
}

void *realloc(void *p, size_t size) {
    return resized(p, size, (uintptr_t) __builtin_return_address(0));
}

void *reallocarray(void *p, size_t n, size_t size) {
    size_t total;
    if (__builtin_mul_overflow(n, size, &total)) {
        errno = ENOMEM;
        return NULL;
    }
    return resized(p, total, (uintptr_t) __builtin_return_address(0));
}

void *memalign(size_t alignment, size_t size) {
    return noted(__libc_memalign(alignment, size), size, (uintptr_t) __builtin_return_address(0));
}

void *aligned_alloc(size_t alignment, size_t size) {
    return noted(__libc_memalign(alignment, size), size, (uintptr_t) __builtin_return_address(0));
}

int posix_memalign(void **out, size_t alignment, size_t size) {
    if (alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0) {
        return EINVAL;
    }
    void *p = noted(__libc_memalign(alignment, size), size, (uintptr_t) __builtin_return_address(0));
    if (p == NULL) {
        return ENOMEM;
    }
    *out = p;
    return 0;
}

static int stack_library(const char *name) {
    return strstr(name, "/libibverbs.so") || strstr(name, "/librdmacm.so") || strstr(name, "-rdmav")
           || strstr(name, "/libnl-");
}

static int add_ranges(struct dl_phdr_info *info, size_t size, void *data) {
    (void) size;
    int *n = data;
    if (info->dlpi_name == NULL || !stack_library(info->dlpi_name)) {
        return 0;
    }
    for (int i = 0; i < info->dlpi_phnum && *n < MAX_RANGES; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
            ranges[*n].start = info->dlpi_addr + ph->p_vaddr;
            ranges[*n].end = ranges[*n].start + ph->p_memsz;
            (*n)++;
        }
    }
    return 0;
}

/* Starts counting afresh; returns how many code ranges of the RDMA stack are watched. */
int ac_start(void) {
    atomic_store(&range_count, 0);
    lock();
    for (size_t i = 0; i < SLOTS; i++) {
        table[i].ptr = 0;
    }
    atomic_store(&live_blocks, 0);
    live_bytes = 0;
    overflowed = 0;
    unlock();
    int n = 0;
    dl_iterate_phdr(add_ranges, &n);
    atomic_store_explicit(&range_count, n, memory_order_release);
    return n;
}

/* Blocks and bytes allocated by the stack since ac_start() and not freed; -1 blocks if too many to follow. */
void ac_outstanding(long *blocks, long *bytes) {
    lock();
    *blocks = overflowed ? -1 : atomic_load(&live_blocks);
    *bytes = live_bytes;
    unlock();
}

/* Writes the outstanding blocks grouped by caller (at most 16 callers), one line each; returns the length. */
int ac_report(char *out, int capacity) {
    struct { uintptr_t caller; long blocks, bytes; } by[16];
    int callers = 0;
    lock();
    for (size_t i = 0; i < SLOTS; i++) {
        if (table[i].ptr == 0) {
            continue;
        }
        int c = 0;
        while (c < callers && by[c].caller != table[i].caller) {
            c++;
        }
        if (c == callers) {
            if (callers == 16) {
                continue;
            }
            by[callers++] = (typeof(by[0])) {table[i].caller, 0, 0};
        }
        by[c].blocks++;
        by[c].bytes += (long) table[i].size;
    }
    unlock();
    // dladdr takes the loader's lock: only after ours is released, or a thread freeing inside dlopen would wait on us.
    int length = 0;
    for (int c = 0; c < callers && length < capacity; c++) {
        Dl_info info = {0};
        dladdr((void *) by[c].caller, &info);
        long offset = info.dli_sname ? (long) (by[c].caller - (uintptr_t) info.dli_saddr)
                                     : (long) (by[c].caller - (uintptr_t) info.dli_fbase);
        length += snprintf(out + length, (size_t) (capacity - length), "%ld blocks, %ld bytes from %s+0x%lx (%s)\n",
                           by[c].blocks, by[c].bytes, info.dli_sname ? info.dli_sname : "?", offset,
                           info.dli_fname ? info.dli_fname : "?");
    }
    return length < capacity ? length : capacity - 1;
}
