/**
 * Incremental updates (docs/GUIDE.md, "Incremental updates"): {@link
 * dev.cuckoofilter.spark.update.FilterUpdater} applies a {@link dev.cuckoofilter.spark.update.ChangeSet}
 * (rows added and deleted, or two snapshots) to a filter of a dataset's distinct keys, removing a key
 * only when its last row is gone and adding it only when it was absent, and grows or rebuilds the
 * filter when it would pass its capacity.
 */
package dev.cuckoofilter.spark.update;
