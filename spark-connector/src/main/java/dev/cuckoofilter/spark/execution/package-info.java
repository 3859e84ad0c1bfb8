/**
 * Physical operators, written in Java on {@link dev.cuckoofilter.spark.execution.JavaSparkPlan}: the
 * map-side build of a runtime filter, where {@link dev.cuckoofilter.spark.execution.FilterTapExec}
 * collects partial builds while the join's shuffle is written and {@link
 * dev.cuckoofilter.spark.execution.MapSideFilterBuildExec} turns them into the filter on the driver.
 */
package dev.cuckoofilter.spark.execution;
