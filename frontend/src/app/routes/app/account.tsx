import { ApiTokensPanel } from '@/features/account/components/api-tokens-panel';
import { PasswordForm } from '@/features/account/components/password-form';

const AccountRoute = () => (
  <>
    <h1>Account</h1>
    <section aria-labelledby="password-title">
      <h2 id="password-title">Password</h2>
      <PasswordForm />
    </section>
    <section aria-labelledby="tokens-title">
      <h2 id="tokens-title">API tokens</h2>
      <p className="muted">
        Scripts and notebooks authenticate with a personal token, as you, in your current workspace. Name each
        token after what uses it; revoke it when that stops.
      </p>
      <ApiTokensPanel />
    </section>
  </>
);

export default AccountRoute;
