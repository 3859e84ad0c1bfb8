package dev.cuckoofilter.spark;

import com.esotericsoftware.kryo.Kryo;
import dev.cuckoofilter.core.CuckooFilter;
import dev.cuckoofilter.core.kryo.CuckooFilterSerializer;
import org.apache.spark.serializer.KryoRegistrator;

/**
 * Registers {@link CuckooFilter} with the core's Kryo serializer (the binary format), so filters travel
 * compactly in broadcasts and collects with {@code spark.serializer=KryoSerializer}, also with
 * {@code spark.kryo.registrationRequired=true}:
 * {@code spark.kryo.registrator=dev.cuckoofilter.spark.CuckooKryoRegistrator}.
 */
public final class CuckooKryoRegistrator implements KryoRegistrator {
  @Override
  public void registerClasses(Kryo kryo) {
    kryo.register(CuckooFilter.class, new CuckooFilterSerializer());
    // What an RDD whose ClassTag is CuckooFilter (a Scala RDD[CuckooFilter]) ships in its partitions and collects:
    // refused without it under spark.kryo.registrationRequired=true.
    kryo.register(CuckooFilter[].class);
  }
}
