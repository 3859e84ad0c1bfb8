package dev.cuckoofilter.spark;

import dev.cuckoofilter.spark.sql.CuckooSqlFunctions;
import org.apache.spark.sql.SparkSessionExtensions;
import org.apache.spark.sql.SparkSessionExtensionsProvider;
import scala.runtime.AbstractFunction1;
import scala.runtime.BoxedUnit;

/**
 * Enables the SQL functions {@code cuckoo_filter}, {@code cuckoo_might_contain} and
 * {@code cuckoo_filter_info} in every session:
 * {@code spark.sql.extensions=dev.cuckoofilter.spark.CuckooFilterExtensions}.
 */
public final class CuckooFilterExtensions extends AbstractFunction1<SparkSessionExtensions, BoxedUnit>
    implements SparkSessionExtensionsProvider {
  @Override
  public BoxedUnit apply(SparkSessionExtensions extensions) {
    CuckooSqlFunctions.register(extensions);
    return BoxedUnit.UNIT;
  }
}
