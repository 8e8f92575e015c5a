/** The recipe of each broker a ServerConfig names (recipe.ts says what a recipe is). */
import { beanstalkdRecipe } from './beanstalkd.ts';
import type { ServerConfig } from './configurations.ts';
import { natsRecipe } from './nats.ts';
import { postgresRecipe } from './postgres.ts';
import { rabbitmqRecipe } from './rabbitmq.ts';
import type { Recipe } from './recipe.ts';
import { redisRecipe } from './redis.ts';

/** The recipe that starts `config`. Throws ServerError (`server_missing`, `unknown_configuration`). */
export function recipeOf(config: ServerConfig): Recipe {
  switch (config.broker) {
    case 'redis':
      return redisRecipe(config.persistence);
    case 'beanstalkd':
      return beanstalkdRecipe(config.binlog);
    case 'nats':
      return natsRecipe(config.storage);
    case 'rabbitmq':
      return config.consumerTimeoutMs === undefined
        ? rabbitmqRecipe(config.queueType)
        : rabbitmqRecipe(config.queueType, config.consumerTimeoutMs);
    case 'postgres':
      return postgresRecipe(config.synchronousCommit);
  }
}
