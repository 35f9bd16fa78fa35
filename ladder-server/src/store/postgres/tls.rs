//! TLS to PostgreSQL with rustls, following libpq's `sslmode`: `verify-full` checks the
//! certificate chain and the host name, `verify-ca` the chain only, `require` (without a
//! root certificate) encrypts without checking, as libpq does.

use std::sync::Arc;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::WebPkiServerVerifier;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{CertificateError, ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme};
use tokio_postgres_rustls::MakeRustlsConnect;

use crate::store::database_url::{PgSettings, RootCerts, TlsMode};

/// The connector for `settings` (used for every mode; with `disable`, tokio-postgres never
/// starts TLS).
///
/// # Errors
/// The root certificates cannot be read.
pub fn connector(settings: &PgSettings) -> Result<MakeRustlsConnect, String> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = ClientConfig::builder_with_provider(Arc::clone(&provider)).with_safe_default_protocol_versions().map_err(|e| format!("TLS: {e}"))?;
    let config = match settings.tls {
        TlsMode::VerifyFull | TlsMode::VerifyCa => {
            let roots = Arc::new(roots(settings.root_certs.as_ref().unwrap_or(&RootCerts::System), "sslrootcert")?);
            let webpki = WebPkiServerVerifier::builder_with_provider(roots, provider).build().map_err(|e| format!("TLS: {e}"))?;
            let verifier: Arc<dyn ServerCertVerifier> = if settings.tls == TlsMode::VerifyCa { Arc::new(AnyName(webpki)) } else { webpki };
            builder.dangerous().with_custom_certificate_verifier(verifier).with_no_client_auth()
        }
        TlsMode::Disable | TlsMode::Prefer | TlsMode::Require => {
            let supported = provider.signature_verification_algorithms;
            builder.dangerous().with_custom_certificate_verifier(Arc::new(Unverified(supported))).with_no_client_auth()
        }
    };
    Ok(MakeRustlsConnect::new(config))
}

/// The trusted roots of `source`; errors name the setting `what`.
///
/// # Errors
/// The file cannot be read or holds no certificate; the system has no roots.
pub(crate) fn roots(source: &RootCerts, what: &str) -> Result<RootCertStore, String> {
    let mut store = RootCertStore::empty();
    match source {
        RootCerts::File(path) => {
            let certificates = CertificateDer::pem_file_iter(path).map_err(|e| format!("{what} {}: {e}", path.display()))?;
            for certificate in certificates {
                let certificate = certificate.map_err(|e| format!("{what} {}: {e}", path.display()))?;
                store.add(certificate).map_err(|e| format!("{what} {}: {e}", path.display()))?;
            }
            if store.is_empty() {
                return Err(format!("{what} {}: no certificate in the file", path.display()));
            }
        }
        RootCerts::System => {
            let found = rustls_native_certs::load_native_certs();
            for certificate in found.certs {
                let _ = store.add(certificate);
            }
            if store.is_empty() {
                return Err(format!("{what}: the operating system has no trusted root certificates (pass a file)"));
            }
        }
    }
    Ok(store)
}

/// `verify-ca`: the chain must verify; the name in it need not match the host.
#[derive(Debug)]
struct AnyName(Arc<WebPkiServerVerifier>);

impl ServerCertVerifier for AnyName {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        match self.0.verify_server_cert(end_entity, intermediates, server_name, ocsp, now) {
            Err(rustls::Error::InvalidCertificate(CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. })) => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }
    fn verify_tls12_signature(&self, message: &[u8], cert: &CertificateDer<'_>, dss: &DigitallySignedStruct) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls12_signature(message, cert, dss)
    }
    fn verify_tls13_signature(&self, message: &[u8], cert: &CertificateDer<'_>, dss: &DigitallySignedStruct) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls13_signature(message, cert, dss)
    }
    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.supported_verify_schemes()
    }
}

/// `prefer` and `require` without a root certificate: encrypted, not authenticated (as
/// libpq); the handshake's signatures are still checked.
#[derive(Debug)]
struct Unverified(rustls::crypto::WebPkiSupportedAlgorithms);

impl ServerCertVerifier for Unverified {
    fn verify_server_cert(&self, _: &CertificateDer<'_>, _: &[CertificateDer<'_>], _: &ServerName<'_>, _: &[u8], _: UnixTime) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }
    fn verify_tls12_signature(&self, message: &[u8], cert: &CertificateDer<'_>, dss: &DigitallySignedStruct) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.0)
    }
    fn verify_tls13_signature(&self, message: &[u8], cert: &CertificateDer<'_>, dss: &DigitallySignedStruct) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.0)
    }
    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.supported_schemes()
    }
}
