package dev.cuckoofilter.spark.store;

import dev.cuckoofilter.core.CuckooFilter;
import java.io.IOException;
import java.lang.ref.SoftReference;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Stored filters loaded in this JVM, so that an executor reads a version once however many tasks probe
 * it. Keys name a version's data file, which is never modified (its name holds a unique commit id), so
 * an entry never goes stale. Concurrent tasks wait for one load rather than each reading the file. A
 * few recent filters are kept, softly: under memory pressure the JVM may drop one, which is then
 * reloaded.
 */
final class ExecutorFilterCache {
  private static final int CAPACITY = 8;

  /** Access-ordered: the eldest entry is the least recently used. */
  private static final Map<String, Slot> SLOTS = new LinkedHashMap<>(16, 0.75f, true) {
    private static final long serialVersionUID = 1L;

    @Override
    protected boolean removeEldestEntry(Map.Entry<String, Slot> eldest) {
      return size() > CAPACITY;
    }
  };
  private static final AtomicLong LOADS = new AtomicLong();

  private ExecutorFilterCache() {}

  /** Reads a filter from a store. */
  interface Loader {
    CuckooFilter load() throws IOException;
  }

  /** The cached filter for {@code key}, loaded by {@code loader} if absent. */
  static CuckooFilter get(String key, Loader loader) throws IOException {
    Slot slot;
    synchronized (SLOTS) {
      slot = SLOTS.computeIfAbsent(key, k -> new Slot());
    }
    return slot.get(loader);
  }

  /** Filters loaded (not found cached) in this JVM so far. */
  static long loads() {
    return LOADS.get();
  }

  /** Whether a filter for {@code key} is cached. */
  static boolean contains(String key) {
    synchronized (SLOTS) {
      Slot s = SLOTS.get(key);
      return s != null && s.cached() != null;
    }
  }

  private static final class Slot {
    private SoftReference<CuckooFilter> filter;

    synchronized CuckooFilter cached() {
      return filter == null ? null : filter.get();
    }

    synchronized CuckooFilter get(Loader loader) throws IOException {
      CuckooFilter f = cached();
      if (f == null) {
        f = loader.load(); // a failure caches nothing: the next task tries again and fails as clearly
        LOADS.incrementAndGet();
        filter = new SoftReference<>(f);
      }
      return f;
    }
  }
}
