/**
 * Automatic cuckoo runtime filters (docs/SPARK.md, "Automatic runtime filters"): {@link
 * dev.cuckoofilter.spark.optimizer.CuckooRuntimeFilterRule} adds a pruning predicate to the big side of
 * an equi-join that would be shuffled, configured by the {@code spark.cuckoo.*} settings of {@link
 * dev.cuckoofilter.spark.optimizer.RuntimeFilterConf}; {@link
 * dev.cuckoofilter.spark.optimizer.StoredFilterIndex} uses registered stored filters as join indexes;
 * {@link dev.cuckoofilter.spark.optimizer.ShareCreationSideShuffle} lets the build read the join's own
 * shuffle; {@link dev.cuckoofilter.spark.optimizer.RemoveInferredProbes} drops the probes Spark's
 * constraint propagation copies onto the build side. The per-query hints {@code CUCKOO_FILTER} and {@code
 * NO_CUCKOO_FILTER} are resolved by {@link dev.cuckoofilter.spark.optimizer.ResolveCuckooFilterHints} into
 * {@link dev.cuckoofilter.spark.optimizer.CuckooFilterHint} nodes, which the rule reads and removes.
 */
package dev.cuckoofilter.spark.optimizer;
