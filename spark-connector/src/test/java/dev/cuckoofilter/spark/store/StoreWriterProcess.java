package dev.cuckoofilter.spark.store;

import dev.cuckoofilter.core.CuckooFilter;
import java.io.File;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;

/**
 * A writer in its own JVM, for faults a thread cannot simulate. Arguments: mode, location URI, Hadoop
 * configuration XML file (or "-").
 *
 * <ul>
 *   <li>{@code stop-before-commit <parent> <from> <to>}: publishes a filter of keys [from, to) on the
 *       parent, and after writing the data file prints {@code DATA_WRITTEN <uri>} and waits to be killed;
 *   <li>{@code publish-and-read <from> <to>}: publishes on the latest version, reads it back and prints
 *       {@code PUBLISHED <version> <equal>}.
 * </ul>
 */
public final class StoreWriterProcess {
  private StoreWriterProcess() {}

  public static void main(String[] args) throws Exception {
    Configuration conf = new Configuration();
    if (!args[2].equals("-")) {
      conf.addResource(new Path(new File(args[2]).toURI()));
    }
    FilterStore store = FilterStore.open(args[1], conf);
    switch (args[0]) {
      case "stop-before-commit": {
        CuckooFilter filter = TestFilters.range(Long.parseLong(args[4]), Long.parseLong(args[5]));
        store.publish(filter, TestFilters.metadata(filter, Long.parseLong(args[3])), dataFile -> {
          System.out.println("DATA_WRITTEN " + dataFile);
          System.out.flush();
          try {
            Thread.sleep(Long.MAX_VALUE);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          throw new IllegalStateException("the test should have killed this writer");
        });
        break;
      }
      case "publish-and-read": {
        CuckooFilter filter = TestFilters.range(Long.parseLong(args[3]), Long.parseLong(args[4]));
        long parent = store.latest().map(FilterVersion::version).orElse(FilterMetadata.NO_PARENT);
        FilterVersion v = store.publish(filter, TestFilters.metadata(filter, parent));
        StoredFilter read = store.readLatest();
        System.out.println("PUBLISHED " + v.version() + " " + read.filter().equals(filter));
        break;
      }
      default:
        throw new IllegalArgumentException("unknown mode " + args[0]);
    }
  }
}
