import type { WebsocketHandler } from '@fastify/websocket';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type {
  ContextConfigDefault,
  FastifyBaseLogger,
  FastifyInstance,
  FastifyRequest,
  FastifySchema,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
  RouteGenericInterface,
  RouteHandlerMethod,
} from 'fastify';

/** A request of a route whose schema `S` types its params, query and body. */
export type TypedRequest<S extends FastifySchema> = FastifyRequest<
  RouteGenericInterface,
  RawServerDefault,
  RawRequestDefaultExpression,
  S,
  TypeBoxTypeProvider
>;

/** A GET route that answers plain requests with `handler` and WebSocket upgrades with `wsHandler`, typed by its schema. */
export interface HttpOrWebSocketRoute<S extends FastifySchema> {
  readonly url: string;
  readonly schema: S;
  readonly handler: RouteHandlerMethod<
    RawServerDefault,
    RawRequestDefaultExpression,
    RawReplyDefaultExpression,
    RouteGenericInterface,
    ContextConfigDefault,
    S,
    TypeBoxTypeProvider
  >;
  readonly wsHandler: WebsocketHandler<
    RawServerDefault,
    RawRequestDefaultExpression,
    RouteGenericInterface,
    ContextConfigDefault,
    S,
    TypeBoxTypeProvider,
    FastifyBaseLogger
  >;
}

/** Registers a route with both handlers, through the websocket plugin's `wsHandler`. */
export function httpOrWebSocketRoute<S extends FastifySchema>(app: FastifyInstance, route: HttpOrWebSocketRoute<S>): void {
  app.withTypeProvider<TypeBoxTypeProvider>().route<RouteGenericInterface, ContextConfigDefault, S>({ method: 'GET', ...route });
}
