// The explorer of the API that GET /graphql opens in a browser: GraphiQL
// (vendored in static/graphiql/) posting to the API with the console's
// session, which a same-origin fetch sends. No inline script: the page's
// Content-Security-Policy allows none.
(function () {
  "use strict";
  var root = document.getElementById("graphiql");
  var fetcher = GraphiQL.createFetcher({ url: root.dataset.url, enableIncrementalDelivery: false });
  ReactDOM.createRoot(root).render(
    React.createElement(GraphiQL, { fetcher: fetcher, defaultQuery: root.dataset.defaultQuery }),
  );
})();
