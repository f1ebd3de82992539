import { NotFound } from '@/components/ui/not-found';

/** Unknown routes, inside the app shell (its navigation stays). */
const NotFoundRoute = () => <NotFound />;

export default NotFoundRoute;
