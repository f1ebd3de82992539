import { Link } from 'react-router';

import { paths } from '@/config/paths';

const NotFoundRoute = () => (
  <main className="page">
    <h1>Page not found</h1>
    <p>
      <Link to={paths.experiments.getHref()}>Go to the experiments</Link>
    </p>
  </main>
);

export default NotFoundRoute;
