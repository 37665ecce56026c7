import { defaultResource, resourceFromAttributes, type Resource } from '@opentelemetry/resources';
import { packageVersion } from '../package-info.js';
import { METER_NAME } from './meter.js';

/** The resource of everything the CLI exports (metrics and traces): the service `fed`, at its version. */
export function fedResource(): Resource {
  return defaultResource().merge(
    resourceFromAttributes({ 'service.name': METER_NAME, 'service.version': packageVersion() }),
  );
}
