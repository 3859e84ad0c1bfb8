package dev.cuckoofilter.core.kryo;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.Serializer;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import dev.cuckoofilter.core.CuckooFilter;
import java.io.IOException;

/**
 * Kryo (4.x, as shipped with Spark 3.5) serializer writing the same bytes as
 * {@link CuckooFilter#writeTo}. Register it with {@code kryo.register(CuckooFilter.class, new
 * CuckooFilterSerializer())}, or in Spark through the connector's Kryo registrator.
 */
public final class CuckooFilterSerializer extends Serializer<CuckooFilter> {
  public CuckooFilterSerializer() {
    setImmutable(false);
  }

  @Override
  public void write(Kryo kryo, Output output, CuckooFilter filter) {
    try {
      filter.writeTo(output);
    } catch (IOException e) {
      throw new KryoException("could not write cuckoo filter", e);
    }
  }

  @Override
  public CuckooFilter read(Kryo kryo, Input input, Class<CuckooFilter> type) {
    try {
      return CuckooFilter.readFrom(input);
    } catch (IOException e) {
      throw new KryoException("could not read cuckoo filter: " + e.getMessage(), e);
    }
  }

  @Override
  public CuckooFilter copy(Kryo kryo, CuckooFilter original) {
    return original.copy();
  }
}
