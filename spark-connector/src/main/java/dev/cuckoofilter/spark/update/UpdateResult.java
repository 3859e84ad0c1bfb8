package dev.cuckoofilter.spark.update;

import dev.cuckoofilter.core.CuckooFilter;
import java.util.Locale;

/**
 * The outcome of an incremental update.
 *
 * @param filter          the updated filter, in canonical layout (byte-identical to a fresh build of the new
 *                        dataset with the same parameters)
 * @param entriesAdded    entries inserted for keys that were absent
 * @param entriesRemoved  entries removed because no row has their key any more
 * @param deletedKeptKeys deleted keys whose entry stays because other rows (or another key with the same
 *                        entry) still produce it
 * @param rebuilt         true if the filter was rebuilt from the new dataset instead of updated
 * @param rebuildReason   why it was rebuilt (null if it was not)
 */
public record UpdateResult(CuckooFilter filter, long entriesAdded, long entriesRemoved, long deletedKeptKeys,
    boolean rebuilt, String rebuildReason) {

  /** A one-line summary for job output. */
  public String summary() {
    return rebuilt
        ? "rebuilt the filter (" + rebuildReason + "): " + filter.size() + " entries"
        : String.format(Locale.ROOT,
            "updated the filter: +%d entries, -%d entries, %d deleted keys still present; %d entries, "
            + "load %.3f, fpp %.3g", entriesAdded, entriesRemoved, deletedKeptKeys, filter.size(), filter.loadFactor(),
            filter.expectedFpp());
  }
}
