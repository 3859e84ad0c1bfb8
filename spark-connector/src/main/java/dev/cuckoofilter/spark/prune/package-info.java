/**
 * Semi-join pruning: {@link dev.cuckoofilter.spark.prune.JoinPruning} decides which side of which join
 * type may be pruned without changing the result, {@link dev.cuckoofilter.spark.prune.JoinKeys}
 * presents join keys as a filter must see them (nulls, structs), and {@link
 * dev.cuckoofilter.spark.prune.FilterSubquery} builds a pruning predicate whose filter the query itself
 * builds.
 */
package dev.cuckoofilter.spark.prune;
