package dev.cuckoofilter.spark.optimizer;

import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/** Queries of the stored filter tests, run with the rule on and off in the active session. */
final class RuleOnOff {
  private RuleOnOff() {}

  static String plan(Dataset<Row> df) {
    return df.queryExecution().optimizedPlan().toString();
  }

  /** The rows ordered by their columns {@code k} and {@code v}. */
  static List<Row> sorted(Dataset<Row> df) {
    return df.orderBy("k", "v").collectAsList();
  }

  static List<Row> withRuleOff(String sql) {
    SparkSession spark = SparkSession.active();
    spark.conf().set(RuntimeFilterConf.ENABLED, "false");
    try {
      return sorted(spark.sql(sql));
    } finally {
      spark.conf().unset(RuntimeFilterConf.ENABLED);
    }
  }
}
