package dev.cuckoofilter.spark.store;

import dev.cuckoofilter.core.CuckooFilter;
import dev.cuckoofilter.spark.expressions.FilterHandle;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Locale;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.SparkSession;
import scala.reflect.ClassTag$;

/** How probes reach a stored filter: broadcast from the driver, or read by each executor from the store. */
final class StoredFilterHandles {
  private StoredFilterHandles() {}

  /** The filter, read on the driver, as a broadcast. */
  static FilterHandle broadcast(SparkSession spark, String location, CommitRecord r, CuckooFilter filter) {
    Broadcast<CuckooFilter> b = spark.sparkContext().broadcast(filter, ClassTag$.MODULE$.apply(CuckooFilter.class));
    return FilterHandle.broadcast(b, describe(location, r, "broadcast " + b.id()));
  }

  /**
   * A handle executors resolve by reading the version from the store. The Hadoop configuration travels
   * as one broadcast: tasks deserialize their handle each time, and a broadcast reference keeps that
   * cheap, while the configuration itself (often hundreds of entries) reaches each executor once.
   */
  static FilterHandle loadedByExecutors(SparkSession spark, String location, CommitRecord r, Configuration conf) {
    Broadcast<byte[]> confBytes = spark.sparkContext().broadcast(toBytes(conf),
        ClassTag$.MODULE$.apply(byte[].class));
    return new LoadedByExecutors(location, r.version(), r.data(), r.metadata().itemCount(), r.metadata().capacity(),
        confBytes, describe(location, r, "loaded by executors"));
  }

  private static String describe(String location, CommitRecord r, String how) {
    return String.format(Locale.ROOT, "%s version %d (%s): %d items, fpp %.2g, %d bytes", location, r.version(), how,
        r.metadata().itemCount(), r.metadata().fpp(), r.data().bytes());
  }

  static byte[] toBytes(Configuration conf) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      conf.write(out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  static Configuration fromBytes(byte[] bytes) {
    Configuration conf = new Configuration(false);
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
      conf.readFields(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return conf;
  }

  /** Resolved through {@link ExecutorFilterCache}: one read of the store per executor JVM. */
  static final class LoadedByExecutors extends FilterHandle {
    private static final long serialVersionUID = 1L;
    private final String location;
    private final long version;
    private final DataFileRef data;
    /** What the commit record says of the filter, checked when it is read. */
    private final long itemCount;
    private final long capacity;
    private final Broadcast<byte[]> conf;
    private final String description;
    private transient volatile CuckooFilter filter;

    LoadedByExecutors(String location, long version, DataFileRef data, long itemCount, long capacity,
        Broadcast<byte[]> conf, String description) {
      this.location = location;
      this.version = version;
      this.data = data;
      this.itemCount = itemCount;
      this.capacity = capacity;
      this.conf = conf;
      this.description = description;
    }

    /** The cache key: the data file, unique to this publish. */
    String cacheKey() {
      return location + "/" + StoreLayout.DATA_DIR + "/" + data.name();
    }

    @Override
    public CuckooFilter filter() {
      CuckooFilter f = filter;
      if (f == null) {
        try {
          f = ExecutorFilterCache.get(cacheKey(), () -> {
            FilterStore store = FilterStore.open(location, fromBytes(conf.value()));
            try {
              return store.readFilter(version, data, itemCount, capacity);
            } finally {
              store.closeIfUncached();
            }
          });
        } catch (IOException e) {
          throw new UncheckedIOException("cannot load the stored filter " + location + " version " + version + ": "
              + e.getMessage(), e);
        }
        filter = f;
      }
      return f;
    }

    @Override
    public String describe() {
      return description;
    }
  }
}
