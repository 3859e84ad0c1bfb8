/**
 * spark-submit jobs for stored cuckoo filters (docs/JOBS.md): {@link dev.cuckoofilter.examples.jobs.BuildFilterJob}
 * builds a filter of a dataset's keys and publishes it, {@link dev.cuckoofilter.examples.jobs.UpdateFilterJob}
 * updates it for a change of the dataset, {@link dev.cuckoofilter.examples.jobs.PruneJoinJob} prunes a join
 * with it. Run them from the module's main jar, which bundles the project's classes and picocli only.
 */
package dev.cuckoofilter.examples.jobs;
