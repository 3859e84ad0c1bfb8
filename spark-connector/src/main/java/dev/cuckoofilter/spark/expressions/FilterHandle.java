package dev.cuckoofilter.spark.expressions;

import dev.cuckoofilter.core.CuckooFilter;
import java.io.IOException;
import java.io.Serializable;
import java.lang.ref.SoftReference;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.spark.SparkContext;
import org.apache.spark.TaskContext;
import org.apache.spark.broadcast.Broadcast;
import scala.Option;
import scala.reflect.ClassTag$;

/**
 * How a probe reaches its filter on an executor. The filter is deserialized at most once per JVM:
 * broadcast filters are cached by Spark's block manager; filters that travel as bytes (SQL constants
 * and scalar subqueries) are cached here by content, and large ones are turned into a broadcast when
 * the probe is compiled on the driver, so tasks do not each carry (and deserialize) the bytes.
 */
public abstract class FilterHandle implements Serializable {
  private static final long serialVersionUID = 1L;
  /** Filters larger than this travel by broadcast rather than inside the task. */
  static final int BROADCAST_THRESHOLD_BYTES = 1 << 20;

  /** The filter; deserialized on first use in this JVM. */
  public abstract CuckooFilter filter();

  /** A short description for plans: size and items. */
  public abstract String describe();

  /** A handle for a broadcast filter. */
  public static FilterHandle of(Broadcast<CuckooFilter> broadcast, CuckooFilter filter) {
    return broadcast(broadcast, "broadcast " + broadcast.id() + ": " + summary(filter));
  }

  /** A handle for a broadcast filter, shown in plans as {@code description}. */
  public static FilterHandle broadcast(Broadcast<CuckooFilter> broadcast, String description) {
    return new BroadcastHandle(broadcast, description);
  }

  /**
   * A handle for serialized filter bytes: a broadcast if the bytes are large and this is the driver,
   * else the bytes themselves.
   *
   * @throws IllegalArgumentException naming {@code function} if the bytes are not a valid filter
   */
  public static FilterHandle ofBytes(byte[] bytes, String function) {
    CuckooFilter filter = FilterCache.get(bytes, function);
    Option<SparkContext> context = org.apache.spark.SparkContext$.MODULE$.getActive();
    if (bytes.length > BROADCAST_THRESHOLD_BYTES && TaskContext.get() == null && context.isDefined()) {
      Broadcast<CuckooFilter> b = context.get().broadcast(filter, ClassTag$.MODULE$.apply(CuckooFilter.class));
      return of(b, filter);
    }
    return new BytesHandle(bytes, summary(filter));
  }

  /**
   * Checks that {@code bytes} are a valid filter (and caches it for the probes that follow).
   *
   * @throws IllegalArgumentException naming {@code function} and its argument 1 if they are not
   */
  public static void check(byte[] bytes, String function) {
    FilterCache.get(bytes, function);
  }

  /**
   * How many filters handles have deserialized from bytes in this JVM so far (a cached filter is not
   * deserialized again). Broadcast filters are not counted: Spark deserializes those, once per JVM.
   */
  static long filtersDeserialized() {
    return FilterCache.DESERIALIZED.get();
  }

  static String summary(CuckooFilter f) {
    return String.format(Locale.ROOT, "%d items, %.2f bits/item, fpp %.2g, %d bytes", f.size(), f.bitsPerItem(),
        f.expectedFpp(), f.serializedSize());
  }

  private static final class BroadcastHandle extends FilterHandle {
    private static final long serialVersionUID = 1L;
    private final Broadcast<CuckooFilter> broadcast;
    private final String description;

    BroadcastHandle(Broadcast<CuckooFilter> broadcast, String description) {
      this.broadcast = broadcast;
      this.description = description;
    }

    @Override
    public CuckooFilter filter() {
      return broadcast.value();
    }

    @Override
    public String describe() {
      return description;
    }
  }

  private static final class BytesHandle extends FilterHandle {
    private static final long serialVersionUID = 1L;
    private final byte[] bytes;
    private final String summary;
    private transient CuckooFilter filter;

    BytesHandle(byte[] bytes, String summary) {
      this.bytes = bytes;
      this.summary = summary;
    }

    @Override
    public CuckooFilter filter() {
      CuckooFilter f = filter;
      if (f == null) {
        f = FilterCache.get(bytes, "cuckoo_might_contain");
        filter = f;
      }
      return f;
    }

    @Override
    public String describe() {
      return summary;
    }
  }

  /** A few recently used filters per JVM, found by content (the bytes are compared, not trusted). */
  static final class FilterCache {
    private static final int CAPACITY = 8;
    private static final Deque<Entry> ENTRIES = new ArrayDeque<>();
    /** Filters deserialized from bytes in this JVM so far. */
    private static final AtomicLong DESERIALIZED = new AtomicLong();

    private static final class Entry {
      final long key;
      final byte[] bytes;
      final SoftReference<CuckooFilter> filter;

      Entry(long key, byte[] bytes, CuckooFilter filter) {
        this.key = key;
        this.bytes = bytes;
        this.filter = new SoftReference<>(filter);
      }
    }

    private FilterCache() {}

    /**
     * The filter of {@code bytes}, deserialized only if no equal bytes are cached. Lookup, deserialization
     * and insertion hold one lock, so tasks running at once that need the same filter deserialize it once.
     */
    static CuckooFilter get(byte[] bytes, String function) {
      long key = key(bytes);
      synchronized (ENTRIES) {
        for (Entry e : ENTRIES) {
          if (e.key == key && Arrays.equals(e.bytes, bytes)) {
            CuckooFilter f = e.filter.get();
            if (f != null) {
              return f;
            }
          }
        }
        CuckooFilter filter;
        try {
          filter = CuckooFilter.fromByteArray(bytes);
        } catch (IOException e) {
          throw new IllegalArgumentException(function + ": argument 1 (filter) is not a valid cuckoo filter: "
              + e.getMessage(), e);
        }
        DESERIALIZED.incrementAndGet();
        ENTRIES.removeIf(e -> e.key == key && Arrays.equals(e.bytes, bytes)); // an entry whose filter was collected
        ENTRIES.addFirst(new Entry(key, bytes, filter));
        while (ENTRIES.size() > CAPACITY) {
          ENTRIES.removeLast();
        }
        return filter;
      }
    }

    /** Forgets every cached filter, as in a JVM that has not seen them (for tests). */
    static void clear() {
      synchronized (ENTRIES) {
        ENTRIES.clear();
      }
    }

    /** Length and the two checksums of the format: cheap, and exact equality is checked anyway. */
    private static long key(byte[] b) {
      long k = b.length;
      for (int i = Math.max(0, b.length - 4); i < b.length; i++) {
        k = k * 31 + b[i];
      }
      for (int i = 76; i < Math.min(80, b.length); i++) {
        k = k * 31 + b[i];
      }
      return k;
    }
  }
}
