// The GraphQL phases as spans (when tracing is on: src/tracing.ts): parse, validate and execute, children of the
// request's span; execute is active while it runs, so the SQL statements it causes are its children. Spans name
// the operation and its type, never the document or the variables (they may hold a client's data).
import { getOperationAST } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { inSpan, tracer } from '../tracing.js';

export function tracePhases(): Plugin {
  return {
    onParse() {
      const span = tracer.startSpan('graphql.parse');
      return ({ result }) => {
        if (result instanceof Error) span.setAttribute('graphql.error', true);
        span.end();
      };
    },
    onValidate() {
      const span = tracer.startSpan('graphql.validate');
      return ({ valid }) => {
        span.setAttribute('graphql.valid', valid);
        span.end();
      };
    },
    onExecute({ args, executeFn, setExecuteFn }) {
      const operation = getOperationAST(args.document, args.operationName);
      const attributes = {
        'graphql.operation.type': operation?.operation ?? 'unknown',
        ...(operation?.name && { 'graphql.operation.name': operation.name.value }),
      };
      setExecuteFn((executeArgs) =>
        inSpan('graphql.execute', { attributes }, () => Promise.resolve(executeFn(executeArgs))),
      );
    },
  };
}
